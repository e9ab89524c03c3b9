/**
 * Runs the live `contactor top` screen until q, Ctrl+C (a key, or SIGINT when stdin is no terminal),
 * SIGTERM or SIGHUP. Loaded only by `contactor top` (commands/top.ts), so no other verb loads Ink and
 * React. The screen takes the terminal's alternate screen and gives the terminal back as it found it:
 * the earlier contents, the cursor, cooked mode.
 */
import { render } from 'ink';
import type { BridgeClient } from '../bridge-client/bridge-client.js';
import { TopApp } from './app.js';
import { paletteFor } from './components/palette.js';
import { TopController } from './controller.js';
import { TopSource } from './source.js';

export interface ScreenOptions {
  client: BridgeClient;
  colors: boolean;
  stdin?: NodeJS.ReadStream;
  stdout?: NodeJS.WriteStream;
}

/** Resolves when the person quits; rejects with what ended the feed for good (a refused token, an old bridge). */
export async function runTopScreen(opts: ScreenOptions): Promise<void> {
  const stop = new AbortController();
  const controller = new TopController(new TopSource(opts.client), () => stop.abort());
  const signals: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];
  const onSignal = (): void => stop.abort();
  for (const s of signals) process.on(s, onSignal);
  const app = render(
    <TopApp controller={controller} url={opts.client.address.url} palette={paletteFor(opts.colors)} />,
    {
      stdin: opts.stdin ?? process.stdin,
      stdout: opts.stdout ?? process.stdout,
      // The controller quits on Ctrl+C like on q, so both leave the same way.
      exitOnCtrlC: false,
      patchConsole: false,
      alternateScreen: true,
      // Only started on a terminal (commands/top.ts); Ink would otherwise draw only the last frame under CI=true.
      interactive: true,
    },
  );
  let failure: unknown;
  const following = controller.run(stop.signal).catch((err: unknown) => {
    failure = err;
    stop.abort();
  });
  try {
    await new Promise<void>((resolve) => {
      if (stop.signal.aborted) resolve();
      else stop.signal.addEventListener('abort', () => resolve(), { once: true });
    });
  } finally {
    for (const s of signals) process.off(s, onSignal);
    app.unmount();
    await app.waitUntilExit().catch(() => undefined);
    await following;
  }
  if (failure !== undefined) throw failure;
}
