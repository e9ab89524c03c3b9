/**
 * Run by `npm run test:windows` on Linux's Node after the Wine phase: the launcher's own messages
 * (build/launcher/contactor.c, say) on a console whose code page is an OEM one, as cmd.exe's is by default
 * (437 here; 850 and others likewise). Wine gives a console to a program run on a Linux terminal (its conhost
 * on the tty), and the Wine phase's consoles have no screen buffer, so this runs cmd.exe under `script`, a
 * pseudo-terminal, and reads what the terminal shows. UTF-8 bytes written with WriteFile would be read as
 * code page 437 (`ü` shows as `├╝`); the launcher writes UTF-16 with WriteConsoleW, so the path shows as is.
 */
import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../helpers/bridge.js';

const WINE = process.env.CONTACTOR_LANE_WINE ?? '';
const LAUNCHER = path.join(REPO_ROOT, 'out', 'launcher', 'contactor.exe');
const SCRIPT = '/usr/bin/script';
const zPath = (p: string): string => `Z:${p.replaceAll('/', '\\')}`;

/** The text a terminal shows for `command` run by cmd.exe under Wine: escape sequences and line breaks (Wine's
 * console wraps at the terminal's width) taken out. */
function onTerminal(command: string): Promise<string> {
  const child = spawn(SCRIPT, ['-qec', `${WINE} cmd /c '${command}'`, '/dev/null'], {
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  let shown = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (shown += d));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', () => resolve(shown.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '').replace(/[\r\n]/g, '')));
  });
}

describe.skipIf(!WINE || !existsSync(LAUNCHER) || !existsSync(SCRIPT))('the launcher on a console', () => {
  it('names a non-ASCII install path readably on a code page 437 console', async () => {
    const install = mkdtempSync(path.join(tmpdir(), 'contactor-lonely-ünï-'));
    try {
      mkdirSync(path.join(install, 'resources', 'cli'), { recursive: true });
      copyFileSync(LAUNCHER, path.join(install, 'resources', 'cli', 'contactor.exe'));
      const shown = await onTerminal(`chcp 437 >nul & ${zPath(install)}\\resources\\cli\\contactor.exe`);
      expect(shown).toContain(`contactor: cannot start ${zPath(install)}\\Contactor.exe (Windows error 2)`);
    } finally {
      rmSync(install, { recursive: true, force: true });
    }
  });
});
