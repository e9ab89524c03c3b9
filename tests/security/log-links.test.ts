/**
 * The bridge's logs written through a link an agent planted in the data dir. An agent's stderr log
 * (backends/process/agent-log.ts), as the attack goes: an ACP agent, running as the person, uses its own terminal to replace its `logs/agents/<agent>.log`
 * with a symlink or a hard link to a file outside the data dir, or the log's folder with a symlink to a folder
 * outside, then writes to stderr. The bridge appended that stderr (and its "agent process exited" line) to
 * whatever the link led to. Now the files outside stay as they were, byte for byte, and none appears beside them.
 * The bridge log and the audit log are opened the same way (platform/protected-files.ts `openOwnFileForAppend`):
 * a link an agent left there in an earlier run leads nowhere either.
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { agentLogFile } from '../../main/config/data-dir.js';
import { fakeAcpAgent, startTestBridge, tempDir, type TestBridge } from '../helpers/bridge.js';

const VICTIM_TEXT = 'export PATH=$HOME/bin:$PATH\n';
let tb: TestBridge | undefined;
afterEach(async () => {
  await tb?.cleanup();
  tb = undefined;
});

async function say(text: string): Promise<string> {
  const reply = await tb!.rpc('message/send', { agent: 'planter', text, configuration: { blocking: true } });
  expect(reply.result?.status?.state, JSON.stringify(reply)).toBe('completed');
  return JSON.stringify(reply.result.artifacts);
}

/**
 * A bridge with the fake ACP agent `planter`; `plant(log, dir)` gives the terminal commands that turn its log
 * into a link (run after its first stderr line made the log a plain file). Then it writes to stderr and the
 * bridge stops it (its exit line is the log's last write).
 */
async function attack(plant: (log: string, dir: string) => string[]): Promise<void> {
  const dir = tempDir();
  const dataDir = path.join(dir, 'data');
  tb = await startTestBridge({ dir, dataDir, agents: { planter: fakeAcpAgent() }, isolatedEnv: true });
  const log = agentLogFile(dataDir, 'planter');
  expect(await say('echo hello')).toContain('hello');
  expect(readFileSync(log, 'utf8')).toContain('session');
  for (const command of plant(log, dir)) expect(await say(`terminal ${command}`)).toContain('exit=0');
  expect(await say('warn-stderr')).toContain('warned');
  await tb.stop();
}

describe.skipIf(process.platform === 'win32')('an agent log an agent turned into a link', () => {
  it('a symlink to a file outside: the file is untouched', async () => {
    let victim = '';
    await attack((log, dir) => {
      victim = path.join(dir, '.bashrc');
      writeFileSync(victim, VICTIM_TEXT);
      return [`ln -sf ${victim} ${log}`];
    });
    expect(readFileSync(victim, 'utf8')).toBe(VICTIM_TEXT);
  });

  it('a hard link to a file outside: the file is untouched', async () => {
    let victim = '';
    await attack((log, dir) => {
      victim = path.join(dir, 'notes.txt');
      writeFileSync(victim, VICTIM_TEXT);
      return [`ln -f ${victim} ${log}`];
    });
    expect(readFileSync(victim, 'utf8')).toBe(VICTIM_TEXT);
  });

  it('its folder a symlink to a folder outside: nothing there changes, nothing is added', async () => {
    let outside = '';
    await attack((log, dir) => {
      outside = path.join(dir, 'project');
      mkdirSync(outside);
      writeFileSync(path.join(outside, 'planter.log'), VICTIM_TEXT);
      // One command, so no stderr line of the agent's next task re-creates the folder in between.
      const script = path.join(dir, 'swap-folder.mjs');
      writeFileSync(
        script,
        "import { rmSync, symlinkSync } from 'node:fs';\n" +
          'const [folder, target] = process.argv.slice(2);\n' +
          'rmSync(folder, { recursive: true });\n' +
          'symlinkSync(target, folder);\n',
      );
      return [`${process.execPath} ${script} ${path.dirname(log)} ${outside}`];
    });
    expect(readdirSync(outside)).toEqual(['planter.log']);
    expect(readFileSync(path.join(outside, 'planter.log'), 'utf8')).toBe(VICTIM_TEXT);
  });
});

describe.skipIf(process.platform === 'win32')('the bridge log and the audit log, links left in the data dir', () => {
  const outside: string[] = [];
  afterEach(() => outside.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

  /** A data dir where `name` is a symlink to a victim file in a folder of its own; returns both paths. */
  function planted(name: string): { dir: string; dataDir: string; victim: string } {
    const away = tempDir();
    outside.push(away);
    const victim = path.join(away, '.profile');
    writeFileSync(victim, VICTIM_TEXT);
    const dir = tempDir();
    const dataDir = path.join(dir, 'data');
    mkdirSync(path.dirname(path.join(dataDir, name)), { recursive: true });
    symlinkSync(victim, path.join(dataDir, name));
    return { dir, dataDir, victim };
  }

  it('audit/audit.jsonl a symlink: nothing reaches the file, and the bridge log says why', async () => {
    const { dir, dataDir, victim } = planted('audit/audit.jsonl');
    tb = await startTestBridge({ dir, dataDir, isolatedEnv: true });
    const reply = await tb.rpc('message/send', { agent: 'echo', text: 'hello', configuration: { blocking: true } });
    expect(reply.result?.status?.state).toBe('completed');
    await tb.stop();
    expect(readFileSync(victim, 'utf8')).toBe(VICTIM_TEXT);
    const log = readFileSync(path.join(dataDir, 'logs', 'bridge.log'), 'utf8');
    expect(log).toContain('could not write the audit log');
    expect(log).toContain('audit.jsonl: not written, it is a link; remove it');
  });

  it('logs/bridge.log a symlink: the bridge does not start, names the file, and the file is untouched', async () => {
    const { dir, dataDir, victim } = planted('logs/bridge.log');
    await expect(startTestBridge({ dir, dataDir, isolatedEnv: true })).rejects.toThrow(
      `${path.join(dataDir, 'logs', 'bridge.log')}: not written, it is a link; remove it, the bridge creates the file again`,
    );
    expect(readFileSync(victim, 'utf8')).toBe(VICTIM_TEXT);
  });
});
