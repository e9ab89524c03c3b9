/**
 * The options every command shares, and the config and data dir they point to. Reading the config here
 * never creates it: only `up`/`serve` (through wiring) make the default file.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { ConfigError, defaultDataDir, parseConfigText, resolveConfigPath, type UnsetVar } from '../config/config.js';
import { describeConfigMove, type ConfigMove } from '../config/config-move.js';
import { visible } from '../domain/visible-text.js';
import type { BridgeConfig } from '../schema/config.js';
import { CliError, EXIT } from './exit-codes.js';
import { resourcesDir } from './install-paths.js';

export interface GlobalOptions {
  config?: string;
  dataDir?: string;
  json?: boolean;
}

export interface ConfigLocation {
  path: string;
  exists: boolean;
}

export function configLocation(opts: GlobalOptions, env: NodeJS.ProcessEnv): ConfigLocation {
  const where = resolveConfigPath(opts.config, env);
  if (where.moved) reportConfigMove(where.moved);
  return { path: where.path, exists: existsSync(where.path) };
}

const reported = new Set<string>();

/**
 * On stderr, so a `--json` document on stdout stays whole. A copy happens once, so its line appears once; a copy
 * that failed is retried by each look-up of the config, and said once per command.
 */
export function reportConfigMove(move: ConfigMove): void {
  const line = `contactor: ${describeConfigMove(move)}\n`;
  if (reported.has(line)) return;
  reported.add(line);
  // Before any Output exists (the config is read to make one): the file names are shown as the output layer would.
  process.stderr.write(visible(line));
}

/** Parses and validates the config; a problem is exit 2 with the `file:line: key: problem` message. */
export function readConfig(file: string, env: NodeJS.ProcessEnv, unset?: (ref: UnsetVar) => void): BridgeConfig {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    throw new CliError(
      `no config file at ${file}; \`contactor up\` creates the default one, or pass -c <file>`,
      EXIT.usage,
    );
  }
  try {
    return parseConfigText(
      text,
      file,
      {
        CONTACTOR_NODE: process.execPath,
        CONTACTOR_RESOURCES: resourcesDir(),
        ...env,
      },
      unset,
    );
  } catch (err) {
    if (err instanceof ConfigError)
      throw new CliError(
        `${err.message}\n  fix it (\`contactor config edit\`), then \`contactor config check\``,
        EXIT.usage,
      );
    throw err;
  }
}

/**
 * `--data-dir`, else the config's `data_dir`, else the platform default. A config too broken to validate
 * still names its data dir when its YAML parses, so `send` keeps working while `doctor` explains.
 */
export function dataDirOf(opts: GlobalOptions, env: NodeJS.ProcessEnv): string {
  if (opts.dataDir) return path.resolve(opts.dataDir);
  const where = configLocation(opts, env);
  if (!where.exists) {
    // A config the user named must exist: silently using the default bridge would talk to the wrong one.
    if (resolveConfigPath(opts.config, env).explicit) {
      throw new CliError(`no config file at ${where.path}; check the -c / CONTACTOR_CONFIG path`, EXIT.usage);
    }
    return defaultDataDir(env);
  }
  const configured = configuredDataDir(where.path, env);
  return configured ? path.resolve(path.dirname(where.path), configured) : defaultDataDir(env);
}

/**
 * The YAML's own `data_dir` when it is a plain string: what validation would give for a valid file, and
 * the best guess for a broken one. Only a `${VAR}` in it needs the full read. Every CLI call comes here,
 * so the cheap path is the common one (CLI start-up is measured: docs/benchmark.md).
 */
function configuredDataDir(file: string, env: NodeJS.ProcessEnv): string | undefined {
  let raw: { data_dir?: unknown } | null;
  try {
    raw = parseYaml(readFileSync(file, 'utf8')) as { data_dir?: unknown } | null;
  } catch {
    return undefined;
  }
  const value = raw && typeof raw === 'object' ? raw.data_dir : undefined;
  if (typeof value !== 'string' || !value.includes('${')) return typeof value === 'string' ? value : undefined;
  try {
    return readConfig(file, env).data_dir;
  } catch {
    return undefined;
  }
}
