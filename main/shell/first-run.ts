/**
 * The first start of the desktop app says where its icon is. Windows 11 puts a new tray icon in the hidden
 * overflow (the ^ by the clock) until the user pins it, so without this a question could wait unseen.
 */
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export const FIRST_RUN_MARKER = 'desktop-first-run-shown';

export const TRAY_HINT = {
  title: 'Contactor is running in the tray',
  body:
    'Windows puts new icons in the hidden area (^ next to the clock). Drag the Contactor icon onto the taskbar, ' +
    'or turn it on in Settings › Personalization › Taskbar › Other system tray icons, so its badge shows ' +
    'when an agent needs you.',
} as const;

/** True the first time it is asked for this data dir; records the answer (a marker file) as it goes. */
export function takeFirstRun(dataDir: string | undefined): boolean {
  if (!dataDir) return false;
  const marker = path.join(dataDir, FIRST_RUN_MARKER);
  if (existsSync(marker)) return false;
  try {
    writeFileSync(marker, `${new Date().toISOString()}\n`, { mode: 0o600 });
  } catch {
    return false; // no place to remember it: better silent than shown at every start
  }
  return true;
}
