/** The CLI's liveness check is the bridge's own (one copy: a zombie is dead, see data-dir.ts). */
export { isProcessAlive as isAlive } from '../../config/data-dir.js';

/**
 * The pid no longer names any process, not even an exited one waiting for its parent to collect it: a
 * detached bridge's parent is init (or a container's first process), which may take a second or more to
 * reap it, and until then `ps` and `kill -0` still show the pid.
 */
export function isGone(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return false;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ESRCH';
  }
}
