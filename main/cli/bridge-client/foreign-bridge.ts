/**
 * Whose bridge answers at an address. A bridge is this config's only when the discovery file in this data
 * dir names it (same pid): that bridge wrote the file, and the file carries its token. Any
 * other contactor bridge on the port belongs to another HOME, config or data dir, and its token is not ours —
 * reusing it would leave every later command at "unauthorized" (docs/contract.md#discovery-file).
 */
import path from 'node:path';
import type { Discovery, Health } from '../../schema/discovery.js';
import { CliError, EXIT } from '../exit-codes.js';

/**
 * The discovery file of this data dir names the bridge that answered `health` (the file's own `dataDir` is not
 * compared: the same folder may be spelled differently — a symlink, a drive letter's case, a WSL path).
 */
export function isOwnBridge(discovery: Discovery | undefined, health: Health): boolean {
  return discovery !== undefined && discovery.pid === health.pid;
}

/** How to get out of another bridge's way: the same words for `up` and `doctor`. */
export const OTHER_PORT_FIX =
  'give this config another port: `contactor up --port <n>`, or `port:` in config.yaml (`contactor config path` shows where it is)';

export function foreignBridgeDetail(url: string, health: Health, dataDir: string): string {
  return `the contactor bridge at ${url} (pid ${health.pid}, version ${health.version}) is not this config's: it was started with another HOME, config or data dir, and ${path.join(dataDir, 'bridge.json')} does not name it`;
}

export function foreignBridge(url: string, health: Health, dataDir: string): CliError {
  return new CliError(`${foreignBridgeDetail(url, health, dataDir)}; ${OTHER_PORT_FIX}`, EXIT.usage);
}
