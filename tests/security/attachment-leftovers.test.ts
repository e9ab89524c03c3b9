/**
 * Attachment folders of a killed bridge: the run that made one never got to remove it (6 of 6 kill -9
 * runs left `contactor-attachments-*` behind in /tmp, readable there for as long as the machine ran).
 * Now each is user-only and named after its bridge's pid, and the next start removes those whose bridge
 * is gone — and nothing else in a temp folder other users and bridges share.
 */
import { spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdirSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { isProcessAlive } from '../../main/config/data-dir.js';
import { makeRunTempDir, removeLeftoverRunDirs } from '../../main/backends/shared/run-temp-dirs.js';
import { integrationAgent, tempDir, writeTestConfig } from '../helpers/bridge.js';
import { startBridgeProcess, type BridgeProcess } from './kill-harness.js';

const POSIX = process.platform !== 'win32';
/** A pid that ran and is gone: a child that exited and was reaped. */
const deadPid = (): number => spawnSync(process.execPath, ['-e', '']).pid!;

describe('temp folders of agent runs', () => {
  let dir: string | undefined;
  let bridge: BridgeProcess | undefined;
  afterEach(async () => {
    if (bridge) {
      bridge.child.kill('SIGKILL');
      await bridge.exited;
    }
    bridge = undefined;
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it.skipIf(!POSIX)('are user-only, with unpredictable names carrying the bridge pid', async () => {
    const made = await makeRunTempDir('attachments');
    try {
      expect(path.basename(made)).toMatch(new RegExp(`^contactor-attachments-${process.pid}-[A-Za-z0-9]{6}$`));
      expect(statSync(made).mode & 0o777).toBe(0o700);
    } finally {
      rmSync(made, { recursive: true, force: true });
    }
  });

  it('removes only our own folders whose bridge is gone: not a live bridge’s, another user’s, or a symlink', () => {
    dir = tempDir();
    const tmp = path.join(dir, 'tmp');
    mkdirSync(tmp);
    const dead = deadPid();
    const at = (name: string) => path.join(tmp, name);
    const leftover = at(`contactor-attachments-${dead}-aB3xYz`);
    const prompt = at(`contactor-prompt-${dead}-Qw7rTy`);
    mkdirSync(leftover);
    writeFileSync(path.join(leftover, '1-secret.txt'), 'attachment');
    mkdirSync(prompt);
    const live = at(`contactor-attachments-${process.ppid}-Live01`); // another bridge, running
    mkdirSync(live);
    const unrelated = at('contactor-attachments-notapid'); // not a name we make
    mkdirSync(unrelated);
    // A planted link under a leftover's name: never followed, its target untouched.
    const victim = path.join(dir, 'victim');
    mkdirSync(victim);
    writeFileSync(path.join(victim, 'keep.txt'), 'mine');
    const link = at(`contactor-attachments-${dead}-Link01`);
    if (POSIX) symlinkSync(victim, link);
    // Another user's folder (root can make one): not ours to remove.
    const foreign = at(`contactor-prompt-${dead}-Other1`);
    const asRoot = POSIX && process.getuid?.() === 0;
    if (asRoot) {
      mkdirSync(foreign);
      chownSync(foreign, 65534, 65534);
    }

    const removed = removeLeftoverRunDirs(isProcessAlive, tmp);

    expect(removed.sort()).toEqual([leftover, prompt].sort());
    expect(existsSync(leftover)).toBe(false);
    expect(existsSync(live) && existsSync(unrelated)).toBe(true);
    expect(existsSync(path.join(victim, 'keep.txt'))).toBe(true);
    if (asRoot) expect(existsSync(foreign)).toBe(true);
  });

  it.skipIf(!POSIX)(
    'after a kill -9 with an attachment outstanding, the next start removes its folder',
    async () => {
      dir = tempDir();
      const tmp = path.join(dir, 'tmp');
      mkdirSync(tmp);
      const gate = path.join(dir, 'gate'); // never opened: the agent holds its attachments until the kill
      const { configPath, dataDir } = writeTestConfig(dir, { agents: { gated: integrationAgent('gate.mjs', [gate]) } });
      bridge = await startBridgeProcess(configPath, dataDir, dir, { TMPDIR: tmp });
      const sent = fetch(`${bridge.url}/agents/gated`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${bridge.token}` },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'message/send',
          params: {
            message: {
              kind: 'message',
              messageId: 'attachment-1',
              role: 'user',
              parts: [
                { kind: 'text', text: 'read this' },
                { kind: 'file', file: { bytes: Buffer.from('private notes').toString('base64'), name: 'notes.txt' } },
              ],
            },
            configuration: { blocking: true },
          },
        }),
      }).catch(() => undefined); // cut off by the kill
      const ours = new RegExp(`^contactor-attachments-${bridge.child.pid}-`);
      let folder: string | undefined;
      while (!folder) {
        folder = readdirSync(tmp).find((name) => ours.test(name));
        if (!folder) await new Promise((r) => setTimeout(r, 1000));
      }
      const made = path.join(tmp, folder);
      expect(statSync(made).mode & 0o777).toBe(0o700);
      for (const file of readdirSync(made)) expect(statSync(path.join(made, file)).mode & 0o777).toBe(0o600);

      bridge.child.kill('SIGKILL');
      await bridge.exited;
      await sent;
      expect(existsSync(made)).toBe(true);

      bridge = await startBridgeProcess(configPath, dataDir, dir, { TMPDIR: tmp });
      expect(existsSync(made)).toBe(false);
    },
    120_000,
  );
});
