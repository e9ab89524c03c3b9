/**
 * Task cwd confinement, as the attacker did it: a task's `cwd` moved an agent out of its workspace (`/`, a
 * sibling such as `~/.ssh`, the bridge's data dir), and an ACP agent read the token file through
 * fs/read_text_file. Real bridges, real CLI agents and the fake ACP agent (SDK agent side).
 */
import { mkdirSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { asSeenByDistro } from '../../main/backends/process/wsl-paths.js';
import { cwdConfinement } from '../../main/config/cwd-confinement.js';
import { fakeAcpAgent, fixtureAgent, startTestBridge, tempDir, type TestBridge } from '../helpers/bridge.js';

let open: TestBridge[] = [];
afterEach(async () => {
  for (const tb of open) await tb.cleanup();
  open = [];
});

/** A bridge whose HOME is its temp folder: the data dir `<dir>/data` lies inside the home. */
async function bridge(agents: (dir: string) => Record<string, unknown>): Promise<TestBridge> {
  const dir = realpathSync(tempDir());
  const tb = await startTestBridge({ dir, agents: agents(dir), isolatedEnv: true });
  open.push(tb);
  return tb;
}
const reply = (task: { artifacts: { parts: { text?: string }[] }[] }) => task.artifacts[0]?.parts[0]?.text?.trim();

describe('a task cwd is confined to the agent roots', () => {
  it('refuses /, a sibling folder, the data dir and a symlink out, with -32602 naming the roots', async () => {
    let work = '';
    let sibling = '';
    const tb = await bridge((dir) => {
      work = path.join(dir, 'work');
      sibling = path.join(dir, '.ssh');
      mkdirSync(path.join(work, 'sub'), { recursive: true });
      mkdirSync(sibling);
      symlinkSync('/', path.join(work, 'escape'));
      return { here: fixtureAgent('print-cwd.mjs', { cwd: work }) };
    });
    const attacks = ['/', sibling, tb.dataDir, path.join(work, 'escape'), path.join(work, '..', '.ssh')];
    for (const cwd of attacks) {
      const res = await tb.rpc('message/send', { agent: 'here', text: 'x', cwd });
      expect(res.error?.code, cwd).toBe(-32602);
      expect(res.error?.message).toContain(work);
      expect(res.error?.data?.allowedRoots).toEqual([work]);
    }
    // The standard A2A form's metadata.cwd is held to the same rule.
    const standard = await tb.rpc('message/send', {
      message: { kind: 'message', messageId: 'm-1', role: 'user', parts: [{ kind: 'text', text: 'x' }] },
      metadata: { agent: 'here', cwd: '/' },
    });
    expect(standard.error?.code).toBe(-32602);
    // Nothing was stored for a refused send.
    expect((await tb.rpc('tasks/list', { pageSize: 100 })).result.totalSize).toBe(0);
    // Inside the root it runs where it was asked.
    const inside = await tb.rpc('message/send', { agent: 'here', text: 'x', cwd: path.join(work, 'sub') });
    expect(reply(inside.result)).toBe(path.join(work, 'sub'));
  });

  it('gives an agent without cwd the home as root (and runs it there), never the data dir inside it', async () => {
    let home = '';
    const tb = await bridge((dir) => {
      home = dir;
      return { here: fixtureAgent('print-cwd.mjs') };
    });
    expect(reply((await tb.rpc('message/send', { agent: 'here', text: 'x' })).result)).toBe(home);
    expect((await tb.rpc('message/send', { agent: 'here', text: 'x', cwd: '/' })).error?.message).toContain(home);
    const inData = await tb.rpc('message/send', { agent: 'here', text: 'x', cwd: tb.dataDir });
    expect(inData.error?.code).toBe(-32602);
    expect(inData.error?.message).toContain("bridge's own data or config");
  });

  it('allowed_cwds widens the roots, still never to the data dir', async () => {
    let a = '';
    let b = '';
    const tb = await bridge((dir) => {
      a = path.join(dir, 'a');
      b = path.join(dir, 'b');
      mkdirSync(a);
      mkdirSync(b);
      return { here: fixtureAgent('print-cwd.mjs', { cwd: a, allowed_cwds: [a, b, dir] }) };
    });
    expect(reply((await tb.rpc('message/send', { agent: 'here', text: 'x', cwd: b })).result)).toBe(b);
    expect((await tb.rpc('message/send', { agent: 'here', text: 'x', cwd: tb.dataDir })).error?.code).toBe(-32602);
  });
});

describe('ACP fs/* never reaches the bridge data or config', () => {
  it('refuses to read the token file or write into the data dir, even with the home as root', async () => {
    const tb = await bridge(() => ({ acp: fakeAcpAgent() }));
    const token = path.join(tb.dataDir, 'token');
    const read = await tb.rpc('message/send', { agent: 'acp', text: `fs-read ${token}` });
    expect(reply(read.result)).toMatch(/^error=-32602 .*bridge's own data or config/);
    expect(reply(read.result)).not.toContain(tb.token);
    const config = await tb.rpc('message/send', { agent: 'acp', text: `fs-read ${tb.configPath}` });
    expect(reply(config.result)).toMatch(/^error=-32602/);
    const write = await tb.rpc('message/send', { agent: 'acp', text: `fs-write ${tb.dataDir}/evil.txt pwned` });
    expect(reply(write.result)).toMatch(/^error=-32602/);
    // Its own files in the home are served as before.
    writeFileSync(path.join(tb.dir, 'notes.txt'), 'hello');
    const own = await tb.rpc('message/send', { agent: 'acp', text: `fs-read ${path.join(tb.dir, 'notes.txt')}` });
    expect(reply(own.result)).toBe('content=hello');
    // And a task cannot move the session's root to / either.
    expect((await tb.rpc('message/send', { agent: 'acp', text: 'fs-read /etc/hostname', cwd: '/' })).error?.code).toBe(
      -32602,
    );
  });
});

describe('a WSL agent compares paths as its distro sees them', () => {
  // What the WSL wrapper sends for `--cwd` (resources/cli/contactor: `wslpath -w`, documented by Microsoft as
  // giving \\wsl.localhost\<distro>\... for Linux paths and C:\... for /mnt/c/...), against a Linux `cwd`.
  const rules = {
    agent: 'dsh',
    cwd: '/home/me/app',
    home: 'C:\\Users\\me',
    excluded: ['C:\\Users\\me\\AppData\\Local\\contactor'],
    agentPath: (p: string) => asSeenByDistro(p, 'Ubuntu'),
  };

  it('takes the wrapper-translated folder inside the Linux cwd, as the Linux path', () => {
    const confinement = cwdConfinement(rules);
    expect(confinement.confine('\\\\wsl.localhost\\Ubuntu\\home\\me\\app\\sub')).toBe('/home/me/app/sub');
    expect(confinement.confine('//wsl.localhost/Ubuntu/home/me/app')).toBe('/home/me/app');
    expect(confinement.confine('/home/me/app')).toBe('/home/me/app');
  });

  it('refuses what lies outside, another distro, and the data dir reached through /mnt/c', () => {
    const home = cwdConfinement({ ...rules, cwd: undefined });
    expect(home.roots).toEqual(['/mnt/c/Users/me']);
    const attacks = [
      '\\\\wsl.localhost\\Ubuntu\\home\\me',
      '\\\\wsl.localhost\\Debian\\home\\me\\app',
      '/mnt/c/Users/me/AppData/Local/contactor',
      'C:\\Users\\me\\AppData\\Local\\contactor\\logs',
    ];
    expect(() => cwdConfinement(rules).confine(attacks[0]!)).toThrow(/outside the allowed roots/);
    expect(() => cwdConfinement(rules).confine(attacks[1]!)).toThrow(/cannot be reached by the agent.*Debian/);
    for (const cwd of attacks.slice(2)) expect(() => home.confine(cwd)).toThrow(/bridge's own data or config/);
  });
});
