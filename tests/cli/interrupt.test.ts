/**
 * Ctrl-C (SIGINT) to the real CLI against a real bridge: `send` cancels the task it started and says so
 * (exit 130), `--detach` leaves it running, `watch` only stops watching, a fan-out cancels every task it
 * started, a Ctrl-C before the bridge named the task still finds and cancels it, and a second Ctrl-C ends
 * the CLI at once; `answer` stops following as `watch` does. Through the relaunching launcher (bin/contactor.js
 * on an old Node) one Ctrl-C typed on a terminal, or one SIGINT to the launcher's pid alone, reaches the CLI
 * once. Each signal is sent once the CLI has printed what the test waits for, never after a delay.
 */
import { writeFileSync } from 'node:fs';
import { createServer, connect, type Server, type Socket } from 'node:net';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { fakeAcpAgent, fixtureAgent, startTestBridge, tempDir, type TestBridge } from '../helpers/bridge.js';
import { waitForState } from '../helpers/wait.js';
import { bridgeEnv, CLI, cliFixtureAgent, findOldNode, startCli } from './run-cli.js';
import { KEY, startOnPty, type PtyScreen } from './top/pty-screen.js';

let bridge: TestBridge;
let env: Record<string, string>;
/** The `gated` agent replies once this file exists. */
let gate: string;

beforeAll(async () => {
  const dir = tempDir();
  gate = path.join(dir, 'reply-now');
  bridge = await startTestBridge({
    dir,
    agents: {
      sleepy: fixtureAgent('sleeper.mjs'),
      drowsy: fixtureAgent('sleeper.mjs'),
      held: fixtureAgent('sleeper.mjs'),
      stuck: fixtureAgent('sleeper.mjs'),
      gated: cliFixtureAgent('slow-reply.mjs', [gate]),
      asker: fakeAcpAgent(),
    },
  });
  env = bridgeEnv(bridge);
});
afterAll(() => bridge?.cleanup());
const screens: PtyScreen[] = [];
afterEach(() => {
  for (const s of screens.splice(0)) s.kill();
});

const state = async (id: string): Promise<string> =>
  ((await bridge.rpc('tasks/get', { id })).result as { status: { state: string } }).status.state;

describe('Ctrl-C during send', () => {
  it('prints the task id at once, cancels the task on Ctrl-C, waits for the answer, says so and exits 130', async () => {
    const cli = startCli(['send', 'sleepy', 'nap'], { env });
    const id = (await cli.stderrMatch(/^task (\S+)$/m))[1]!;
    cli.child.kill('SIGINT');
    const run = await cli.done;
    expect(run.code).toBe(130);
    expect(run.stderr).toContain(`canceled task ${id}\n`);
    expect(run.stdout).toBe('');
    expect(await state(id)).toBe('canceled');
  });

  it('--json: the one document on stdout is the canceled task', async () => {
    const cli = startCli(['send', 'sleepy', 'nap', '--json'], { env });
    const id = (await cli.stderrMatch(/^task (\S+)$/m))[1]!;
    cli.child.kill('SIGINT');
    const run = await cli.done;
    expect(run.code).toBe(130);
    expect(run.json<{ id: string; status: { state: string } }>()).toMatchObject({
      id,
      status: { state: 'canceled' },
    });
  });

  it('--detach leaves the task running, says how to follow it, and the task completes', async () => {
    const cli = startCli(['send', 'gated', 'carry on', '--detach'], { env });
    const id = (await cli.stderrMatch(/^task (\S+)$/m))[1]!;
    cli.child.kill('SIGINT');
    const run = await cli.done;
    expect(run.code).toBe(130);
    expect(run.stderr).toContain(`left task ${id} running; follow it: contactor watch ${id} (or contactor get ${id})`);
    expect(run.stderr).not.toContain('canceled');
    writeFileSync(gate, '');
    const done = await waitForState(bridge, id, ['completed', 'failed', 'canceled']);
    expect(done.status.state).toBe('completed');
  });

  it('a Ctrl-C before the bridge named the task still finds it (same messageId) and cancels it, once', async () => {
    const proxy = await holdingProxy(new URL(bridge.url), (request) => request.includes('message/stream'));
    try {
      const cli = startCli(['send', 'held', 'in flight'], { env: { ...env, CONTACTOR_URL: proxy.url } });
      await proxy.held;
      cli.child.kill('SIGINT');
      const run = await cli.done;
      expect(run.code).toBe(130);
      const id = /canceled task (\S+)/.exec(run.stderr)?.[1];
      expect(id, run.stderr).toBeDefined();
      expect(await state(id!)).toBe('canceled');
      const listed = (await bridge.rpc('tasks/list', { agent: 'held' })).result as { tasks: { id: string }[] };
      expect(listed.tasks.map((t) => t.id)).toEqual([id]);
    } finally {
      await proxy.close();
    }
  });

  it('a second Ctrl-C ends the CLI at once, saying the task may still be running', async () => {
    const proxy = await holdingProxy(new URL(bridge.url), (request) => request.includes('tasks/cancel'));
    try {
      const cli = startCli(['send', 'stuck', 'hang on'], { env: { ...env, CONTACTOR_URL: proxy.url } });
      const id = (await cli.stderrMatch(/^task (\S+)$/m))[1]!;
      cli.child.kill('SIGINT');
      await proxy.held; // the cancel is on its way and will not be answered
      cli.child.kill('SIGINT');
      const run = await cli.done;
      expect(run.code).toBe(130);
      expect(run.stderr).toContain(`stopped without waiting; task ${id} may still be running: contactor get ${id}`);
      expect(['submitted', 'working']).toContain(await state(id));
      await bridge.rpc('tasks/cancel', { id });
    } finally {
      await proxy.close();
    }
  });
});

describe('Ctrl-C during watch and fan-out', () => {
  it('watch only stops watching, says so, and the task keeps running', async () => {
    const sent = await bridge.rpc('message/send', {
      message: { messageId: 'watch-me', role: 'user', parts: [{ kind: 'text', text: 'nap' }] },
      configuration: { blocking: false },
      metadata: { agent: 'sleepy' },
    });
    const id = (sent.result as { id: string }).id;
    expect(id, JSON.stringify(sent)).toBeDefined();
    const cli = startCli(['watch', id], { env });
    await cli.stderrMatch(new RegExp(`task ${id}`));
    cli.child.kill('SIGINT');
    const run = await cli.done;
    expect(run.code).toBe(130);
    expect(run.stderr).toContain(`stopped watching task ${id}; it keeps running`);
    expect(['submitted', 'working']).toContain(await state(id));
    await bridge.rpc('tasks/cancel', { id });
  });

  it('send --agents: the ids at once, and Ctrl-C cancels every task it started, listing them', async () => {
    const cli = startCli(['send', '--agents', 'sleepy,drowsy', 'both nap'], { env });
    const sleepy = (await cli.stderrMatch(/^task (\S+) \(sleepy\)$/m))[1]!;
    const drowsy = (await cli.stderrMatch(/^task (\S+) \(drowsy\)$/m))[1]!;
    cli.child.kill('SIGINT');
    const run = await cli.done;
    expect(run.code).toBe(130);
    expect(run.stderr).toContain(`canceled task ${sleepy} (sleepy)`);
    expect(run.stderr).toContain(`canceled task ${drowsy} (drowsy)`);
    expect(await state(sleepy)).toBe('canceled');
    expect(await state(drowsy)).toBe('canceled');
  });
});

describe('Ctrl-C during answer', () => {
  it('stops following, says the task keeps running (as watch does), exits 130, and the task completes', async () => {
    const dir = tempDir();
    const release = path.join(dir, 'finish');
    const sent = await bridge.rpc('message/send', {
      agent: 'asker',
      text: `gated-reply ${release} ask`,
      configuration: { blocking: false },
    });
    const id = (sent.result as { id: string }).id;
    await waitForState(bridge, id, 'input-required');
    const s = startOnPty(process.execPath, [CLI, 'answer', id, 'yes'], { env, cols: 200 });
    screens.push(s);
    await s.shows('[working]');
    s.type(KEY.ctrlC);
    const exit = await s.exited;
    // The line is longer than the terminal: read it unwrapped.
    expect((await s.shows('stopped watching')).replace(/\n/g, '')).toContain(
      `stopped watching task ${id}; it keeps running: contactor watch ${id} to follow it again, contactor cancel ${id} to stop it`,
    );
    expect(exit.exitCode).toBe(130);
    expect(await state(id)).toBe('working');
    writeFileSync(release, '');
    expect((await waitForState(bridge, id, ['completed', 'failed', 'canceled'])).status.state).toBe('completed');
  });
});

const oldNode = findOldNode();

describe.skipIf(!oldNode)('Ctrl-C through the relaunching launcher (bin/contactor.js on an old Node)', () => {
  const onPty = (args: string[], envOf = env): PtyScreen => {
    const s = startOnPty(oldNode!, [CLI, ...args], { env: envOf, cols: 200 });
    screens.push(s);
    return s;
  };
  const taskOn = async (s: PtyScreen): Promise<string> =>
    /task (\S+) /.exec(await s.shows((screen) => /task \S+ /.test(screen), 'the task id'))![1]!;

  it('one Ctrl-C on the terminal (to the whole group) reaches the CLI once: the task is canceled', async () => {
    // The cancel waits at the proxy until the CLI's request is there: a copy the launcher passed on as a second
    // signal would have come by then (the launcher has less to do than the CLI), and ended the CLI at once.
    const proxy = await holdingProxy(new URL(bridge.url), (request) => request.includes('tasks/cancel'));
    try {
      const s = onPty(['send', 'sleepy', 'nap'], { ...env, CONTACTOR_URL: proxy.url });
      const id = await taskOn(s);
      s.type(KEY.ctrlC);
      await proxy.held;
      proxy.release();
      const exit = await s.exited;
      const screen = await s.shows(`canceled task ${id}`);
      expect(screen).not.toContain('stopped without waiting');
      expect(exit.exitCode).toBe(130);
      expect(await state(id)).toBe('canceled');
    } finally {
      await proxy.close();
    }
  });

  it("one SIGINT to the launcher's pid alone (a script stopping it) reaches the CLI once", async () => {
    const s = onPty(['send', 'sleepy', 'nap']);
    const id = await taskOn(s);
    process.kill(s.pty.pid, 'SIGINT');
    const exit = await s.exited;
    const screen = await s.shows(`canceled task ${id}`);
    expect(screen).not.toContain('stopped without waiting');
    expect(exit.exitCode).toBe(130);
    expect(await state(id)).toBe('canceled');
  });

  it('two Ctrl-Cs are still two: the second ends the CLI at once', async () => {
    const proxy = await holdingProxy(new URL(bridge.url), (request) => request.includes('tasks/cancel'));
    try {
      const s = onPty(['send', 'stuck', 'hang on'], { ...env, CONTACTOR_URL: proxy.url });
      const id = await taskOn(s);
      s.type(KEY.ctrlC);
      await proxy.held;
      s.type(KEY.ctrlC);
      const exit = await s.exited;
      expect(await s.shows('stopped without waiting')).toContain(
        `stopped without waiting; task ${id} may still be running: contactor get ${id}`,
      );
      expect(exit.exitCode).toBe(130);
      await bridge.rpc('tasks/cancel', { id });
    } finally {
      await proxy.close();
    }
  });
});

/**
 * Forwards to the bridge (rewriting Host, which the bridge checks), except the first request `hold` picks:
 * that one (and its connection) is not forwarded nor answered, as a bridge that has not got to it yet, until
 * `release()`. `held` resolves when it came.
 */
function holdingProxy(
  target: URL,
  hold: (request: string) => boolean,
): Promise<{ url: string; held: Promise<void>; release(): void; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  let used = false;
  let markHeld = (): void => undefined;
  const held = new Promise<void>((resolve) => (markHeld = resolve));
  let release = (): void => undefined;
  const server: Server = createServer((client) => {
    sockets.add(client);
    let upstream: Socket | undefined;
    let holding = false;
    const waiting: string[] = [];
    const forward = (text: string): void => {
      if (upstream === undefined) {
        const up = connect(Number(target.port), target.hostname);
        sockets.add(up);
        up.on('data', (reply: Buffer) => client.write(reply));
        up.on('error', () => undefined).on('close', () => client.destroy());
        upstream = up;
      }
      upstream.write(Buffer.from(text, 'latin1'));
    };
    client.on('data', (chunk: Buffer) => {
      const text = chunk.toString('latin1').replace(`127.0.0.1:${proxyPort()}`, target.host);
      if (!used && hold(text)) {
        used = holding = true;
        release = () => {
          holding = false;
          for (const part of waiting.splice(0)) forward(part);
        };
        markHeld();
      }
      if (holding) waiting.push(text);
      else forward(text);
    });
    client.on('error', () => undefined).on('close', () => upstream?.destroy());
  });
  const proxyPort = () => (server.address() as { port: number }).port;
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        url: `http://127.0.0.1:${proxyPort()}`,
        held,
        release: () => release(),
        close: () => new Promise<void>((done) => (sockets.forEach((s) => s.destroy()), server.close(() => done()))),
      }),
    ),
  );
}
