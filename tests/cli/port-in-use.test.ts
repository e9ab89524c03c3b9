/**
 * The configured port held by a program that is not contactor: `up`, `status`, `doctor`
 * and `agents` each say so and how to choose another port; `up --port` does. A failed start quotes only
 * what that start wrote to serve.log, never an older run's lines.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createTcpServer, type Server as TcpServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describePortHolder } from '../../main/platform/port-holder.js';
import { cleanEnv, closedPort, runCli } from './run-cli.js';

let dir: string;
let env: Record<string, string>;
let web: Server;
let raw: TcpServer;
let webPort: number;
let rawPort: number;
const rawSockets = new Set<Socket>();

function listen(server: Server | TcpServer): Promise<number> {
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve((server.address() as { port: number }).port)),
  );
}

function config(name: string, port: number): string {
  const file = path.join(dir, `${name}.yaml`);
  writeFileSync(file, `port: ${port}\ndata_dir: ${path.join(dir, `data-${name}`)}\n`);
  return file;
}

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'contactor-port-'));
  env = cleanEnv(dir);
  // Some other web app on the port (a dev server, say): it answers HTTP, but not as contactor.
  web = createHttpServer((_req, res) => res.writeHead(404, { 'content-type': 'text/html' }).end('<h1>nope</h1>'));
  webPort = await listen(web);
  // A program that is not HTTP at all: it greets and hangs up.
  raw = createTcpServer((socket) => {
    rawSockets.add(socket);
    socket.on('close', () => rawSockets.delete(socket));
    socket.end('SSH-2.0-OpenSSH_9.6\r\n');
  });
  rawPort = await listen(raw);
});
afterAll(async () => {
  web.closeAllConnections();
  await new Promise((resolve) => web.close(resolve));
  for (const socket of rawSockets) socket.destroy();
  await new Promise((resolve) => raw.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

const inUse = (port: number) => `port ${port} on 127.0.0.1 is in use by a program that is not contactor`;

describe('a port taken by another program', () => {
  it('status and agents: exit 5, naming the port and how to choose another', async () => {
    for (const port of [webPort, rawPort]) {
      const cfg = config(`cmds-${port}`, port);
      const status = await runCli(['status', '-c', cfg], { env });
      expect(status.stderr).toContain(inUse(port));
      // This test process holds the port: the message names it (Linux reads /proc/net/tcp and /proc/<pid>/fd).
      if (process.platform === 'linux') expect(status.stderr).toContain(`, held by pid ${process.pid}: `);
      expect(status.stderr).toContain('contactor up --port <n>');
      expect(status.stderr).toContain('`port:` in config.yaml');
      expect(status.code).toBe(5);
      const agents = await runCli(['agents', '-c', cfg], { env });
      expect(agents.stderr).toContain(inUse(port));
      expect(agents.code).toBe(5);
    }
  });

  it('doctor says the port is in use, not that nothing answers', async () => {
    const run = await runCli(['doctor', '-c', config('doctor', webPort)], { env });
    expect(run.stdout).toContain(`✗ bridge: ${inUse(webPort)}`);
    expect(run.stdout).not.toContain('nothing answers');
    expect(run.code).toBe(2);
  });

  it('up refuses before starting anything, and up --port starts the bridge elsewhere', async () => {
    const cfg = config('up', webPort);
    const refused = await runCli(['up', '-c', cfg], { env });
    expect(refused.stderr).toContain(inUse(webPort));
    expect(refused.code).toBe(2);

    const elsewhere = await runCli(['up', '-c', cfg, '--port', String(await closedPort()), '--json'], { env });
    expect(elsewhere.code).toBe(0);
    try {
      const agents = await runCli(['agents', '-c', cfg, '--json'], { env });
      expect(agents.code).toBe(0);
    } finally {
      expect((await runCli(['down', '-c', cfg], { env })).code).toBe(0);
    }
  });

  it("a failed start quotes what this start wrote to serve.log, not an older run's lines", async () => {
    const cfg = path.join(dir, 'bad-host.yaml');
    const dataDir = path.join(dir, 'data-bad-host');
    mkdirSync(dataDir, { recursive: true });
    writeFileSync(path.join(dataDir, 'serve.log'), 'yesterday: port 8791 is already in use\n'.repeat(5));
    // Valid config, but the address cannot be bound: the bridge process itself fails.
    writeFileSync(cfg, `host: 192.0.2.1\nport: ${await closedPort()}\ndata_dir: ${dataDir}\n`);
    const run = await runCli(['up', '-c', cfg], { env });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('the bridge did not start');
    expect(run.stderr).not.toContain('yesterday');
    expect(run.stderr).toMatch(/EADDRNOTAVAIL|cannot start the bridge/);
  });
});

describe('naming the program that holds a port', () => {
  it('elsewhere it says which command names the holder', () => {
    expect(describePortHolder(8791, 'win32')).toBe('`netstat -ano | findstr :8791` shows the pid that holds it');
    expect(describePortHolder(8791, 'darwin')).toBe(
      '`lsof -nP -iTCP:8791 -sTCP:LISTEN` shows the program that holds it',
    );
  });

  it.runIf(process.platform === 'linux')('on Linux it names the pid and command line of the listener', async () => {
    const server = createTcpServer();
    const port = await listen(server);
    try {
      const own = readFileSync(`/proc/${process.pid}/cmdline`, 'utf8').replaceAll('\0', ' ').trim();
      expect(describePortHolder(port)).toBe(`held by pid ${process.pid}: ${own.slice(0, 200)}`);
    } finally {
      server.close();
    }
  });
});
