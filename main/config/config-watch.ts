/**
 * Notices edits of config.yaml. `fs.watch` on the folder (editors often save by writing a new file and
 * renaming it over the old one, which a watch on the file itself would lose), debounced, plus a slow
 * `fs.watchFile` poll for file systems where fs.watch reports nothing (network drives, some WSL mounts;
 * Node docs, fs.watch "Caveats"). The callback runs at most once per burst of events; it decides itself
 * whether the content really changed.
 */
import { watch, watchFile, unwatchFile, type FSWatcher } from 'node:fs';
import path from 'node:path';

export interface ConfigWatchOptions {
  debounceMs?: number;
  pollMs?: number;
}

/** Starts watching; returns the function that stops it. */
export function watchConfigFile(file: string, onChange: () => void, opts: ConfigWatchOptions = {}): () => void {
  const debounceMs = opts.debounceMs ?? 200;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const changed = (): void => {
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => {
      timer = undefined;
      onChange();
    }, debounceMs);
    timer.unref();
  };
  let watcher: FSWatcher | undefined;
  try {
    const name = path.basename(file);
    watcher = watch(path.dirname(file), { persistent: false }, (_event, changedName) => {
      if (changedName === null || changedName.toString() === name) changed();
    });
    // A folder deleted or unreadable later: the poll below still notices when the file comes back.
    watcher.on('error', () => watcher?.close());
  } catch {
    watcher = undefined;
  }
  const poll = (): void => changed();
  watchFile(file, { interval: opts.pollMs ?? 2000, persistent: false }, poll);
  return () => {
    if (timer) clearTimeout(timer);
    watcher?.close();
    unwatchFile(file, poll);
  };
}
