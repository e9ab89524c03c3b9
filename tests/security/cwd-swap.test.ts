/**
 * A task's cwd is checked when it is accepted and again when its turn starts. The attack: a task is
 * accepted for a folder inside the agent's root and waits in the queue; meanwhile the folder is replaced by
 * a symlink to the bridge's data dir. Without the check at start the queued task ran inside the data dir
 * (next to the token). Real bridge, real CLI agent, real symlink.
 */
import { mkdirSync, realpathSync, renameSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startTestBridge, tempDir, type TestBridge } from '../helpers/bridge.js';
import { waitForState } from '../helpers/wait.js';

/** Prints its cwd; a prompt saying `hold` first waits until the file $RELEASE exists. */
const AGENT = `let s = '';
process.stdin.on('data', (d) => (s += d)).on('end', () => {
  if (!s.includes('hold')) return console.log(process.cwd());
  const t = setInterval(() => {
    if (require('node:fs').existsSync(process.env.RELEASE)) { clearInterval(t); console.log('released'); }
  }, 50);
});`;

let tb: TestBridge | undefined;
afterEach(async () => {
  await tb?.cleanup();
  tb = undefined;
});

describe('a queued task whose cwd became a symlink to the data dir', () => {
  it('fails when its turn starts, and never runs there', async () => {
    const dir = realpathSync(tempDir());
    const work = path.join(dir, 'work');
    const proj = path.join(work, 'proj');
    mkdirSync(proj, { recursive: true });
    const release = path.join(dir, 'release');
    tb = await startTestBridge({
      dir,
      config: { max_concurrent_tasks: 1 },
      agents: {
        here: {
          kind: 'subprocess_cli',
          command: [process.execPath, '-e', AGENT],
          cwd: work,
          env: { RELEASE: release },
        },
      },
    });
    const send = (text: string) =>
      tb!.rpc('message/send', { agent: 'here', text, cwd: proj, configuration: { blocking: false } });
    const holding = (await send('hold')).result;
    await waitForState(tb, holding.id, ['working']);
    const queued = (await send('where?')).result;
    expect(queued.status.state).toBe('submitted');

    // The swap, while the second task waits for the first.
    renameSync(proj, `${proj}-old`);
    symlinkSync(tb.dataDir, proj);
    writeFileSync(release, '');

    expect((await waitForState(tb, holding.id, ['completed', 'failed'])).status.state).toBe('completed');
    const settled = await waitForState(tb, queued.id, ['completed', 'failed']);
    expect(JSON.stringify(settled.artifacts ?? [])).not.toContain(tb.dataDir);
    expect(settled.status.state).toBe('failed');
    expect(JSON.stringify(settled.status.message)).toMatch(/working directory changed.*bridge's own data or config/);
  });
});
