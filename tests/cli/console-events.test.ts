/**
 * The CLI's end of the Windows launcher's console events channel (main/cli/console-events.ts; the launcher,
 * build/launcher/contactor.c, writes 'C' for Ctrl-C, 'B' for Ctrl-Break, 'H' for the console closing into the
 * pipe it names in CONTACTOR_CONSOLE_EVENTS). Here a Unix socket stands in for the pipe (Node's net speaks to
 * both the same way) and the test plays the launcher: the real CLI must react as to a real SIGINT or SIGHUP.
 * The Windows lane presses the keys on a console through the real launcher (tests/windows-lane/launcher-ctrl-c).
 */
import { randomBytes } from 'node:crypto';
import { createServer, type Server, type Socket } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONSOLE_EVENTS_ENV, listenForConsoleEvents } from '../../main/cli/console-events.js';
import { fixtureAgent, startTestBridge, tempDir, type TestBridge } from '../helpers/bridge.js';
import { bridgeEnv, startCli } from './run-cli.js';

/** A launcher's pipe: a name of the launcher's form, and the one client that connects. */
function fakeLauncher(): Promise<{ name: string; client: Promise<Socket>; server: Server }> {
  const name = path.join(tempDir(), `contactor-console-${process.pid}-${randomBytes(16).toString('hex')}`);
  let connected = (_socket: Socket): void => undefined;
  const client = new Promise<Socket>((resolve) => (connected = resolve));
  const server = createServer((socket) => connected(socket));
  return new Promise((resolve) => server.listen(name, () => resolve({ name, client, server })));
}

describe.skipIf(process.platform === 'win32')('the console events channel', () => {
  it('raises SIGINT for Ctrl-C and Ctrl-Break, SIGHUP for a close, ignores other bytes, and takes the name out of the environment', async () => {
    const launcher = await fakeLauncher();
    try {
      const env: NodeJS.ProcessEnv = { [CONSOLE_EVENTS_ENV]: launcher.name, OTHER: 'kept' };
      const raised: string[] = [];
      let done = (): void => undefined;
      const threeRaised = new Promise<void>((resolve) => (done = resolve));
      listenForConsoleEvents(env, (signal) => {
        raised.push(signal);
        if (raised.length === 3) done();
      });
      expect(env).toEqual({ OTHER: 'kept' });
      (await launcher.client).write('CxBH');
      await threeRaised;
      expect(raised).toEqual(['SIGINT', 'SIGINT', 'SIGHUP']);
    } finally {
      launcher.server.close();
    }
  });

  it('a value that is not a launcher pipe is dropped, with one line saying so', () => {
    const env: NodeJS.ProcessEnv = { [CONSOLE_EVENTS_ENV]: '\\\\.\\pipe\\someone-else' };
    const lines: string[] = [];
    const write = process.stderr.write.bind(process.stderr);
    process.stderr.write = ((chunk: string) => (lines.push(chunk), true)) as typeof process.stderr.write;
    try {
      listenForConsoleEvents(env, () => expect.fail('nothing may be raised'));
    } finally {
      process.stderr.write = write;
    }
    expect(env).toEqual({});
    expect(lines).toEqual(['contactor: ignoring CONTACTOR_CONSOLE_EVENTS: not a contactor launcher pipe\n']);
  });
});

describe.skipIf(process.platform === 'win32')('the real CLI, with the launcher forwarding', () => {
  let bridge: TestBridge;
  beforeAll(async () => {
    bridge = await startTestBridge({ dir: tempDir(), agents: { sleepy: fixtureAgent('sleeper.mjs') } });
  });
  afterAll(() => bridge?.cleanup());

  it('Ctrl-C during `send` cancels the task, says so and exits 130', async () => {
    const launcher = await fakeLauncher();
    try {
      const cli = startCli(['send', 'sleepy', 'nap'], {
        env: bridgeEnv(bridge, { [CONSOLE_EVENTS_ENV]: launcher.name }),
      });
      const id = (await cli.stderrMatch(/^task (\S+)$/m))[1]!;
      (await launcher.client).write('C');
      const run = await cli.done;
      expect(run.code).toBe(130);
      expect(run.stderr).toContain(`canceled task ${id}\n`);
      const got = await bridge.rpc('tasks/get', { id });
      expect((got.result as { status: { state: string } }).status.state).toBe('canceled');
    } finally {
      launcher.server.close();
    }
  });

  it('the console closing during `watch` stops watching and exits 129 (SIGHUP)', async () => {
    const sent = await bridge.rpc('message/send', {
      message: { messageId: 'close-me', role: 'user', parts: [{ kind: 'text', text: 'nap' }] },
      configuration: { blocking: false },
      metadata: { agent: 'sleepy' },
    });
    const id = (sent.result as { id: string }).id;
    const launcher = await fakeLauncher();
    try {
      const cli = startCli(['watch', id], { env: bridgeEnv(bridge, { [CONSOLE_EVENTS_ENV]: launcher.name }) });
      await cli.stderrMatch(new RegExp(`task ${id}`));
      (await launcher.client).write('H');
      const run = await cli.done;
      expect(run.code).toBe(129);
      expect(run.stderr).toContain(`stopped watching task ${id}; it keeps running`);
    } finally {
      launcher.server.close();
      await bridge.rpc('tasks/cancel', { id });
    }
  });

  it('a verb that does not catch the event ends as the signal would: `serve` on a close exits 129', async () => {
    const launcher = await fakeLauncher();
    try {
      const home = tempDir();
      const cli = startCli(['serve', '--port', '0', '--data-dir', path.join(home, 'data')], {
        env: { ...bridgeEnv(bridge, { [CONSOLE_EVENTS_ENV]: launcher.name }), CONTACTOR_URL: undefined },
      });
      await cli.stdoutMatch(/contactor bridge on /);
      (await launcher.client).write('H');
      const run = await cli.done;
      expect(run.code).toBe(129);
      expect(run.stdout).not.toContain('stopped');
    } finally {
      launcher.server.close();
    }
  });
});
