/**
 * The floor: a bare node:http server that reads the body and answers a fixed JSON-RPC result. No
 * bridge can beat it on the same client; contactor is reported as a fraction of it.
 * Argv: [port] (default: any free port).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

const reply = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  result: { kind: 'task', id: 't', contextId: 'c', status: { state: 'completed' } },
});
const server = createServer((req, res) => {
  req.on('data', () => undefined);
  req.on('end', () => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(reply) });
    res.end(reply);
  });
});
server.keepAliveTimeout = 60_000;
server.listen(Number(process.argv[2] ?? 0), '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ ready: true, port: (server.address() as AddressInfo).port })}\n`);
});
process.on('SIGTERM', () => process.exit(0));
