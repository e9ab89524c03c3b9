/**
 * Owns the running bridge for the desktop shell: start, reload (live, or stop and create again from the
 * config when it must), stop. A bridge that cannot start is an error state the tray shows, not a crash:
 * the user can fix the config and reload.
 */
import type { Bridge } from '../wiring/wiring.js';

export type Dispatcher = Bridge['server']['dispatcher'];
type FeedListener = Parameters<Dispatcher['feed']['listen']>[0];

export class BridgeHost {
  private current: Bridge | undefined;
  private failure: string | undefined;
  private lastConfig: Bridge['config'] | undefined;
  private unsubscribe: (() => void) | undefined;
  private readonly feedListeners = new Set<FeedListener>();
  private readonly changeListeners = new Set<() => void>();
  /** Start, reload and stop run one after another: a reload during a start must not leave two bridges. */
  private chain: Promise<void> = Promise.resolve();

  constructor(private readonly create: () => Promise<Bridge>) {}

  get bridge(): Bridge | undefined {
    return this.current;
  }

  get error(): string | undefined {
    return this.failure;
  }

  /** Config path and data dir of the latest bridge created, running or not (for Open config / Open logs). */
  get config(): Bridge['config'] | undefined {
    return this.lastConfig;
  }

  start(): Promise<void> {
    return this.serially(() => this.open());
  }

  /**
   * The tray's "Reload config". A running bridge applies the file live, as `contactor reload` does
   * (config-reload.ts): a bad edit keeps the last good config and every running task, and the tray shows
   * the problem. Only keys read at start (port, data dir, ...) take a restart; a bridge that could not
   * start is started again.
   */
  reload(): Promise<void> {
    return this.serially(async () => {
      const running = this.current;
      if (running) {
        const result = running.reloadConfig();
        if (result.error !== undefined || result.restartNeeded.length === 0) return;
      }
      await this.close();
      await this.open();
    });
  }

  stop(): Promise<void> {
    return this.serially(() => this.close());
  }

  /** Sign-out or shutdown: the synchronous part of a stop, now (server.ts endSession says why). */
  endSession(): void {
    this.current?.server.endSession();
  }

  /** Every task event of whichever bridge is running, across reloads. */
  onFeed(listener: FeedListener): () => void {
    this.feedListeners.add(listener);
    return () => this.feedListeners.delete(listener);
  }

  /** The bridge started, stopped or failed. */
  onChange(listener: () => void): () => void {
    this.changeListeners.add(listener);
    return () => this.changeListeners.delete(listener);
  }

  private serially(step: () => Promise<void>): Promise<void> {
    this.chain = this.chain.then(step, step);
    return this.chain;
  }

  private async open(): Promise<void> {
    let bridge: Bridge | undefined;
    try {
      bridge = await this.create();
      this.lastConfig = bridge.config;
      await bridge.start();
      this.current = bridge;
      this.failure = undefined;
      const unlistenFeed = bridge.server.dispatcher.feed.listen((event, task, cursor) => {
        for (const listener of this.feedListeners) listener(event, task, cursor);
      });
      // A config edit applied or refused while running: the tray redraws (it shows a refused edit).
      const unlistenConfig = bridge.onConfigChange(() => this.changed());
      this.unsubscribe = () => {
        unlistenFeed();
        unlistenConfig();
      };
    } catch (err) {
      if (bridge) await bridge.stop().catch(() => undefined);
      this.current = undefined;
      this.failure = (err as Error).message;
    }
    this.changed();
  }

  private async close(): Promise<void> {
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    const bridge = this.current;
    this.current = undefined;
    if (bridge) await bridge.stop();
    this.changed();
  }

  private changed(): void {
    for (const listener of this.changeListeners) listener();
  }
}
