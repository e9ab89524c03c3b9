/**
 * Loads config.yaml: finds it, expands `${VAR}` placeholders, validates it with the one schema, and
 * reports problems as `file:line: key: what is wrong`. The only file of the bridge core where agent
 * products may be named (in the default config's examples).
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { LineCounter, parseDocument, isMap, isSeq, type Document, type Node } from 'yaml';
import { BridgeConfigSchema, type BridgeConfig } from '../schema/config.js';
import { moveLegacyConfig, type ConfigMove } from './config-move.js';
import { allowedKeysAt } from './config-keys.js';
import { likelyTypo } from './key-suggestion.js';

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

export interface LoadedConfig {
  config: BridgeConfig;
  path: string;
  dataDir: string;
  /** This load wrote the default config (the first start): the caller says where. */
  created?: boolean;
  /** This load moved the config from its former default location, or could not: the caller says so. */
  moved?: ConfigMove;
}

type Env = Record<string, string | undefined>;

/**
 * Where config and data live: docs/contract.md#files-and-places. On Windows the config is in
 * %USERPROFILE%\.contactor, a folder no uninstall touches: electron-builder's uninstaller removes the install
 * folder (%LOCALAPPDATA%\Programs\contactor) on every uninstall and update, and with `--delete-app-data`
 * %APPDATA%\<name> for the app's file, product and package names (app-builder-lib templates/nsis/uninstaller.nsh,
 * `RMDir /r "$APPDATA\${APP_FILENAME}"` and the two after it); build/installer.nsh deletes no folder. The
 * dot-folder in the profile is where the agents it sits beside keep theirs (.claude, .codex, .gemini), and it
 * roams with a roaming profile as %APPDATA% does.
 */
export function defaultConfigPath(env: Env = process.env, platform: NodeJS.Platform = process.platform): string {
  if (platform === 'win32') return path.win32.join(env.USERPROFILE || homedir(), '.contactor', 'config.yaml');
  const base = env.XDG_CONFIG_HOME || path.posix.join(env.HOME || homedir(), '.config');
  return path.posix.join(base, 'contactor', 'config.yaml');
}

/** The Windows default before it moved (config-move.ts): %APPDATA%\contactor\config.yaml. */
export function legacyConfigPath(
  env: Env = process.env,
  platform: NodeJS.Platform = process.platform,
): string | undefined {
  if (platform !== 'win32') return undefined;
  return path.win32.join(env.APPDATA ?? path.win32.join(homedir(), 'AppData', 'Roaming'), 'contactor', 'config.yaml');
}

export function defaultDataDir(env: Env = process.env, platform: NodeJS.Platform = process.platform): string {
  if (platform === 'win32')
    return path.win32.join(env.LOCALAPPDATA ?? path.win32.join(homedir(), 'AppData', 'Local'), 'contactor');
  const base = env.XDG_STATE_HOME || path.posix.join(env.HOME || homedir(), '.local', 'state');
  return path.posix.join(base, 'contactor');
}

/**
 * `-c/--config` wins, then CONTACTOR_CONFIG, then the platform default. A config still at the former Windows
 * default is copied to the new one first (config-move.ts); if that copy fails, the old file stays the one read.
 */
export function resolveConfigPath(
  explicit: string | undefined,
  env: Env = process.env,
  platform: NodeJS.Platform = process.platform,
): { path: string; explicit: boolean; moved?: ConfigMove } {
  if (explicit) return { path: path.resolve(explicit), explicit: true };
  if (env.CONTACTOR_CONFIG) return { path: path.resolve(env.CONTACTOR_CONFIG), explicit: true };
  const current = defaultConfigPath(env, platform);
  const legacy = legacyConfigPath(env, platform);
  const moved = legacy === undefined ? undefined : moveLegacyConfig(legacy, current);
  if (moved === undefined) return { path: current, explicit: false };
  return { path: moved.kind === 'copied' ? current : moved.from, explicit: false, moved };
}

export interface LoadOptions {
  configPath?: string;
  env?: Env;
  /** Where the bundled resources (demo agent, example config) live. */
  resourcesDir: string;
  /** The Node binary that runs bundled scripts (the demo agent). */
  nodePath: string;
}

/**
 * Reads the config. A missing default config is created from the example (so the first run works out of
 * the box); a missing config the user named explicitly is an error.
 */
export function loadConfig(opts: LoadOptions): LoadedConfig {
  const env = opts.env ?? process.env;
  const where = resolveConfigPath(opts.configPath, env);
  const created = !existsSync(where.path);
  if (created) {
    if (where.explicit)
      throw new ConfigError(
        `no config file at ${where.path}; check the path, or run \`contactor config init\` to create one`,
      );
    mkdirSync(path.dirname(where.path), { recursive: true });
    writeFileSync(where.path, readFileSync(path.join(opts.resourcesDir, 'config.example.yaml'), 'utf8'), {
      mode: 0o600,
    });
  }
  const text = readFileSync(where.path, 'utf8');
  const config = parseConfigText(text, where.path, { ...builtinVars(opts), ...env });
  const dataDir = config.data_dir ? path.resolve(path.dirname(where.path), config.data_dir) : defaultDataDir(env);
  return {
    config,
    path: where.path,
    dataDir,
    ...(created ? { created } : {}),
    ...(where.moved ? { moved: where.moved } : {}),
  };
}

function builtinVars(opts: LoadOptions): Env {
  return { CONTACTOR_NODE: opts.nodePath, CONTACTOR_RESOURCES: opts.resourcesDir };
}

/** A `${NAME}` whose variable is not set: where it is used. */
export interface UnsetVar {
  name: string;
  /** The key path, e.g. agents.shout.env.KEY. */
  key: string;
  /** file:line */
  where: string;
}

/**
 * Parses and validates config text; every error names the file, line and key. With `unset`, a `${NAME}`
 * whose variable is not set is reported there and read as "" instead of failing the load (`doctor` names
 * the agent it stops).
 */
export function parseConfigText(text: string, file: string, vars: Env, unset?: (ref: UnsetVar) => void): BridgeConfig {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false });
  if (doc.errors.length > 0) {
    const err = doc.errors[0]!;
    // `linePos` is only filled in with prettyErrors; the offset is always there.
    const line = err.linePos?.[0]?.line ?? lines.linePos(err.pos[0]).line;
    throw new ConfigError(`${file}${line ? `:${line}` : ''}: invalid YAML: ${err.message.split('\n')[0]}`);
  }
  let raw: unknown;
  try {
    raw = doc.toJS() ?? {};
  } catch (err) {
    // The yaml library throws a ReferenceError for an alias bomb ("Excessive alias count"), and may throw
    // others building values; each is a bad config like any other, never a crash.
    throw new ConfigError(`${file}: invalid YAML: ${(err as Error).message}`);
  }
  const where = (at: (string | number)[]): string => {
    const line = lineOf(doc, lines, at);
    return `${file}${line ? `:${line}` : ''}`;
  };
  const expanded = expandVars(raw, vars, where, [], unset);
  const parsed = BridgeConfigSchema.safeParse(expanded);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const key = issue.path.map(String).join('.') || '(top level)';
    const typo = misspelledKey(issue, parsed.error.issues, (at) => {
      const line = keyLine(doc, lines, at);
      return `${file}${line ? `:${line}` : ''}`;
    });
    if (typo) throw new ConfigError(`${typo.where}: ${typo.key}: ${typo.message}`);
    if (issue.code === 'unrecognized_keys') {
      const found = unknownKeyLines(parsed.error.issues, expanded, (at) => keyLine(doc, lines, at));
      throw new ConfigError(
        found
          .sort((a, b) => (a.line ?? 0) - (b.line ?? 0))
          .map((k) => `${file}${k.line ? `:${k.line}` : ''}: ${k.text}`)
          .join('\n'),
      );
    }
    throw new ConfigError(`${where(issue.path as (string | number)[])}: ${key}: ${messageOf(issue)}`);
  }
  return parsed.data;
}

/**
 * A required key that is missing where the same object has unknown keys: zod reports the missing key
 * first ("expected array, received undefined"), pointing at the object. Say instead which unknown key it
 * most likely is, and where that key is written.
 */
function misspelledKey(
  issue: ConfigIssue,
  issues: readonly ConfigIssue[],
  whereKey: (at: (string | number)[]) => string,
): { where: string; key: string; message: string } | undefined {
  if (issue.code !== 'invalid_type' || !issue.message.endsWith('received undefined')) return undefined;
  const parent = issue.path.slice(0, -1).map(String);
  const wanted = String(issue.path[issue.path.length - 1]);
  const unknown = issues
    .filter((i) => i.code === 'unrecognized_keys' && i.path.map(String).join('.') === parent.join('.'))
    .flatMap((i) => (i.code === 'unrecognized_keys' ? i.keys : []));
  if (unknown.length === 0) return undefined;
  const key = issue.path.map(String).join('.');
  const expected = 'expected' in issue ? `: expected ${String(issue.expected)}` : '';
  const typo = likelyTypo(wanted, unknown);
  if (typo)
    return {
      where: whereKey([...parent, typo]),
      key: [...parent, typo].join('.'),
      message: `unknown key; did you mean \`${wanted}\`? (${key} is required${expected})`,
    };
  const listed = unknown.map((k) => `\`${k}\` (${whereKey([...parent, k])})`).join(', ');
  return {
    where: whereKey(parent),
    key,
    message: `missing${expected}; the unknown key${unknown.length === 1 ? '' : 's'} next to it: ${listed}`,
  };
}

/**
 * Every unknown key in the file, one line each in file order: where the key itself is written (not the first key of its
 * agent), and the key it most likely meant. A secret's own key (`api_key:`, `token:`) gets the `_env` key
 * that names its variable, since the value itself never goes in config.yaml.
 */
function unknownKeyLines(
  issues: readonly ConfigIssue[],
  value: unknown,
  lineOfKey: (at: (string | number)[]) => number | undefined,
): { line: number | undefined; text: string }[] {
  return issues.flatMap((issue) => {
    if (issue.code !== 'unrecognized_keys') return [];
    const parent = issue.path as (string | number)[];
    const allowed = allowedKeysAt(parent, value);
    return issue.keys.map((key) => {
      const at = [...parent, key];
      const secret = allowed.includes(`${key}_env`) ? `${key}_env` : undefined;
      const guess = secret ? undefined : likelyTypo(key, allowed);
      const advice = secret
        ? `; the ${key} itself never goes in config.yaml: put it in an environment variable and name that variable in \`${secret}\``
        : guess
          ? `; did you mean \`${guess}\`?`
          : '';
      return { line: lineOfKey(at), text: `${at.join('.')}: unknown key${advice}` };
    });
  });
}

/** The line of a key itself (not its value, which may start on the next line). */
function keyLine(doc: Document, lines: LineCounter, keyPath: (string | number)[]): number | undefined {
  const parent = keyPath.length > 1 ? doc.getIn(keyPath.slice(0, -1), true) : doc.contents;
  const name = keyPath[keyPath.length - 1];
  if (isMap(parent)) {
    for (const pair of parent.items) {
      const k = pair.key as Node | null;
      const value = k && 'value' in k ? (k as { value: unknown }).value : k;
      if (String(value) === String(name) && k?.range) return lines.linePos(k.range[0]).line;
    }
  }
  return lineOf(doc, lines, keyPath);
}

/** A bad record key (an agent name) reports "Invalid key in record"; the schema's own words are inside. */
type ConfigIssue = NonNullable<ReturnType<typeof BridgeConfigSchema.safeParse>['error']>['issues'][number];

function messageOf(issue: ConfigIssue): string {
  if (issue.code === 'invalid_key') return issue.issues[0]?.message ?? issue.message;
  return issue.message;
}

/** `${NAME}` in any string value becomes the variable's value; an unknown name is an error. */
function expandVars(
  value: unknown,
  vars: Env,
  where: (at: (string | number)[]) => string,
  at: (string | number)[],
  unset?: (ref: UnsetVar) => void,
): unknown {
  if (typeof value === 'string') {
    return value.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_m, name: string) => {
      const v = vars[name];
      if (v !== undefined) return v;
      if (!unset) throw new ConfigError(`${where(at)}: ${at.join('.')}: \${${name}} is not set in the environment`);
      unset({ name, key: at.join('.'), where: where(at) });
      return '';
    });
  }
  if (Array.isArray(value)) return value.map((v, i) => expandVars(v, vars, where, [...at, i], unset));
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [k, expandVars(v, vars, where, [...at, k], unset)]),
    );
  }
  return value;
}

function lineOf(doc: Document, lines: LineCounter, keyPath: (string | number)[]): number | undefined {
  for (let n = keyPath.length; n >= 0; n -= 1) {
    const node = doc.getIn(keyPath.slice(0, n), true) as Node | undefined;
    const offset = node && (isMap(node) || isSeq(node) || 'range' in node) ? node.range?.[0] : undefined;
    if (offset !== undefined) return lines.linePos(offset).line;
  }
  return undefined;
}

/** Names of the environment variables agents may inherit; anything else must be set in the agent's `env`. */
const INHERITED_ENV =
  /^(PATH|PATHEXT|HOME|USER|USERNAME|LOGNAME|SHELL|LANG|LANGUAGE|LC_[A-Z]+|TZ|TERM|TMPDIR|TEMP|TMP|SYSTEMROOT|SYSTEMDRIVE|COMSPEC|WINDIR|APPDATA|LOCALAPPDATA|USERPROFILE|HOMEDRIVE|HOMEPATH|PROGRAMFILES|PROGRAMFILES\(X86\)|PROGRAMDATA|COMMONPROGRAMFILES|XDG_[A-Z_]+|WSL_DISTRO_NAME|WSL_INTEROP|NUMBER_OF_PROCESSORS|PROCESSOR_ARCHITECTURE|OS|NODE_EXTRA_CA_CERTS|SSL_CERT_FILE|SSL_CERT_DIR|HTTPS?_PROXY|NO_PROXY|https?_proxy|no_proxy|NO_COLOR)$/i;

/**
 * The environment every agent the bridge starts inherits (the bridge's own variables and the agent's
 * configured `env` go on top). The CLI's probes use it too, so a probe sees what a task will see.
 */
export function inheritedAgentEnv(env: Record<string, string | undefined>): Record<string, string> {
  // No ELECTRON_RUN_AS_NODE here: only the app's own exe gets it, at spawn (backends/process/agent-env.ts).
  return Object.fromEntries(
    Object.entries(env).filter((e): e is [string, string] => e[1] !== undefined && INHERITED_ENV.test(e[0])),
  );
}
