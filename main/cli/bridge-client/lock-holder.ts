/**
 * Several `up` at once on one data dir (agents are told to run `up` themselves, so they do): exactly one
 * bridge takes the instance lock (config/data-dir.ts); the others wait for that one to answer and report it,
 * instead of failing on the lock or calling the new bridge "another config's".
 */
import { instanceLockHolder } from '../../config/data-dir.js';
import type { GlobalOptions } from '../settings.js';
import { BridgeClient } from './bridge-client.js';
import { locateBridge, readDiscovery, type BridgeAddress } from './locate.js';

/**
 * The bridge of the process holding `dataDir`'s lock, once its discovery file names it and it answers
 * /health as that pid; undefined when no live process holds the lock (it failed, or none was starting) or
 * the deadline passes.
 */
export async function bridgeOfLockHolder(
  opts: GlobalOptions,
  dataDir: string,
  deadline: number,
): Promise<{ address: BridgeAddress; pid: number } | undefined> {
  while (Date.now() < deadline) {
    const holder = instanceLockHolder(dataDir);
    if (holder === undefined) return undefined;
    if (holder !== 'starting' && readDiscovery(dataDir)?.pid === holder) {
      const address = locateBridge({ ...opts, dataDir }, { CONTACTOR_URL: '' });
      if ((await new BridgeClient(address).health())?.pid === holder) return { address, pid: holder };
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return undefined;
}
