/** A bridge that accepts `message/stream` and then drops the stream before any event (it crashed). */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT } from '../../main/cli/exit-codes.js';
import { cleanEnv, runCli } from './run-cli.js';

let server: Server;
let url: string;
let home: string;

beforeAll(async () => {
  home = mkdtempSync(path.join(tmpdir(), 'contactor-review-'));
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(': accepted\n\n');
      setTimeout(() => res.socket?.destroy(), 20);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  rmSync(home, { recursive: true, force: true });
});

describe('contactor send when the stream drops before the first event', () => {
  it('exits 5 (bridge unreachable) with one clear line and one --json document', async () => {
    const env = cleanEnv(home, { CONTACTOR_URL: url, CONTACTOR_TOKEN: 't' });
    const run = await runCli(['send', 'worker', 'hello', '--json', '--message-id', 'm-1'], { env });
    expect(run.code).toBe(EXIT.unreachable);
    expect(run.stderr).not.toMatch(/unexpected error|\n\s+at /);
    expect(run.json()).toMatchObject({ error: { exitCode: EXIT.unreachable } });
  });
});
