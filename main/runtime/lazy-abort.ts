/**
 * An abort whose AbortSignal is made only when someone asks for it. Most turns end without anything
 * waiting on a signal (an in-process reply, an agent that answers before anyone cancels): they pay for
 * no AbortController and no listener. `onAbort` hooks run at `abort()`, as an 'abort' listener would.
 */
export class LazyAbort {
  private controller: AbortController | undefined;
  private done = false;
  private hooks: (() => void)[] | undefined;

  get aborted(): boolean {
    return this.done;
  }

  /** A real signal for code that needs one (a backend passing it to a child process or a fetch). */
  get signal(): AbortSignal {
    this.controller ??= new AbortController();
    if (this.done) this.controller.abort();
    return this.controller.signal;
  }

  abort(): void {
    if (this.done) return;
    this.done = true;
    this.controller?.abort();
    const hooks = this.hooks ?? [];
    this.hooks = undefined;
    for (const hook of hooks) hook();
  }

  /** Runs `hook` at `abort()` (at once when aborted already); the function returned takes it back. */
  onAbort(hook: () => void): () => void {
    if (this.done) {
      hook();
      return () => undefined;
    }
    (this.hooks ??= []).push(hook);
    return () => {
      this.hooks = this.hooks?.filter((h) => h !== hook);
    };
  }
}
