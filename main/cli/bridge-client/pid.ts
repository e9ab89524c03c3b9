/** The CLI's liveness check is the bridge's own (one copy: a zombie is dead, see data-dir.ts). */
export { isProcessAlive as isAlive } from '../../config/data-dir.js';
