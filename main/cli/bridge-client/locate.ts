/**
 * Finding the bridge (docs/contract.md#discovery-file): CONTACTOR_URL (+ CONTACTOR_TOKEN) wins — that is how
 * agents the bridge started reach it; else the discovery file in the data dir; else the configured
 * address, where nothing answers unless a bridge runs without a discovery file. A config too broken to
 * name an address is an error (exit 2): guessing the default address would talk to some other bridge.
 */
import { readOwnFile } from '../../platform/protected-files.js';
import path from 'node:path';
import { DiscoverySchema, type Discovery } from '../../schema/discovery.js';
import { configLocation, dataDirOf, readConfig, type GlobalOptions } from '../settings.js';

export interface BridgeAddress {
  url: string;
  token?: string;
  dataDir: string;
  discovery?: Discovery;
}

const DEFAULT_URL = 'http://127.0.0.1:8791';

export function locateBridge(opts: GlobalOptions, env: NodeJS.ProcessEnv): BridgeAddress {
  const dataDir = dataDirOf(opts, env);
  const discovery = readDiscovery(dataDir);
  if (env.CONTACTOR_URL) {
    const url = env.CONTACTOR_URL.replace(/\/+$/, '');
    const token = env.CONTACTOR_TOKEN || (discovery?.url === url ? discovery.token : undefined);
    return { url, ...(token ? { token } : {}), dataDir, ...(discovery ? { discovery } : {}) };
  }
  if (discovery) {
    const token = env.CONTACTOR_TOKEN || discovery.token || readTokenFile(dataDir);
    return { url: discovery.url, ...(token ? { token } : {}), dataDir, discovery };
  }
  const token = env.CONTACTOR_TOKEN || readTokenFile(dataDir);
  return { url: configuredUrl(opts, env), ...(token ? { token } : {}), dataDir };
}

export function readDiscovery(dataDir: string): Discovery | undefined {
  try {
    const parsed = DiscoverySchema.safeParse(JSON.parse(readOwnFile(path.join(dataDir, 'bridge.json')) ?? 'null'));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

export function readTokenFile(dataDir: string): string | undefined {
  try {
    const token = readOwnFile(path.join(dataDir, 'token'))?.trim();
    return token || undefined;
  } catch {
    return undefined;
  }
}

function configuredUrl(opts: GlobalOptions, env: NodeJS.ProcessEnv): string {
  const where = configLocation(opts, env);
  if (!where.exists) return DEFAULT_URL;
  const config = readConfig(where.path, env);
  // `port: 0` (any free port) is only known from the discovery file: port 0 never reaches another bridge.
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  return `http://${host}:${config.port}`;
}
