/**
 * config.yaml (docs/contract.md#files-and-places): where it is, what a first run creates,
 * and that every mistake a person can make gives `file:line: key: what is wrong` and changes nothing.
 */
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  ConfigError,
  defaultConfigPath,
  defaultDataDir,
  inheritedAgentEnv,
  legacyConfigPath,
  loadConfig,
  parseConfigText,
  resolveConfigPath,
} from '../../main/config/config.js';
import { z } from 'zod';
import { AgentConfigSchema, BridgeConfigSchema, type AgentConfig } from '../../main/schema/config.js';
const REPO_ROOT = path.resolve(import.meta.dirname, '..', '..');

const RESOURCES = path.join(REPO_ROOT, 'resources');
const EXAMPLE = path.join(RESOURCES, 'config.example.yaml');

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'contactor-config-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

function write(name: string, text: string): string {
  const file = path.join(dir, name);
  writeFileSync(file, text);
  return file;
}

function load(configPath: string | undefined, env: Record<string, string | undefined> = {}) {
  return loadConfig({
    ...(configPath ? { configPath } : {}),
    env,
    resourcesDir: RESOURCES,
    nodePath: process.execPath,
  });
}

function errorOf(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return err as ConfigError;
  }
  throw new Error('expected a ConfigError');
}

describe('bad config gives a clear error', () => {
  it('names the path of a missing explicit file and creates nothing', () => {
    const missing = path.join(dir, 'nope', 'config.yaml');
    const err = errorOf(() => load(missing));
    expect(err.message).toContain(missing);
    expect(existsSync(path.dirname(missing))).toBe(false);
    const viaEnv = errorOf(() => load(undefined, { CONTACTOR_CONFIG: missing }));
    expect(viaEnv.message).toContain(missing);
  });

  it('gives file:line for invalid YAML', () => {
    const file = write('bad.yaml', 'port: 8791\nagents:\n  echo: {kind: subprocess_cli, command: [a\n');
    const err = errorOf(() => load(file));
    expect(err.message).toMatch(new RegExp(`^${escape(file)}:\\d+: invalid YAML`));
    const tab = write('tab.yaml', 'port: 1\nhost: x\n\tbad: y\n');
    expect(errorOf(() => load(tab)).message).toMatch(new RegExp(`^${escape(tab)}:3: invalid YAML`));
  });

  it('refuses a relative cwd or allowed_cwds entry with its line, saying it must be absolute', () => {
    // Resolved against the bridge's own working directory, `cwd: project` would move with wherever it started.
    const cwd = write('cwd.yaml', 'agents:\n  a:\n    kind: subprocess_cli\n    command: [x]\n    cwd: project\n');
    expect(errorOf(() => load(cwd)).message).toMatch(
      new RegExp(`^${escape(cwd)}:5: agents\\.a\\.cwd: must be an absolute path`),
    );
    const roots = write(
      'roots.yaml',
      'agents:\n  a:\n    kind: subprocess_cli\n    command: [x]\n    allowed_cwds:\n      - /srv/ok\n      - ./work\n',
    );
    expect(errorOf(() => load(roots)).message).toMatch(
      new RegExp(`^${escape(roots)}:7: agents\\.a\\.allowed_cwds\\.1: must be an absolute path`),
    );
    // Absolute in every form an agent's platform uses: Linux, a drive, a share.
    const ok = write(
      'ok.yaml',
      'agents:\n  a:\n    kind: subprocess_cli\n    command: [x]\n    cwd: /srv/ok\n    allowed_cwds: [/srv/ok, "C:\\\\work", "\\\\\\\\nas\\\\share"]\n',
    );
    expect(load(ok).config.agents.a!.allowed_cwds).toEqual(['/srv/ok', 'C:\\work', '\\\\nas\\share']);
  });

  it('refuses a duplicate key with its line', () => {
    const file = write('dup.yaml', 'port: 1\nhost: 127.0.0.1\nport: 2\n');
    expect(errorOf(() => load(file)).message).toMatch(new RegExp(`^${escape(file)}:3: invalid YAML`));
  });

  it('names the key and line of a wrong type', () => {
    const file = write('type.yaml', '# comment\nhost: 127.0.0.1\nport: "x"\n');
    const err = errorOf(() => load(file));
    expect(err.message).toMatch(new RegExp(`^${escape(file)}:3: port: `));
  });

  it('names nested keys of an agent with their line', () => {
    const file = write(
      'agent.yaml',
      ['agents:', '  echo:', '    kind: subprocess_cli', '    command: [node]', '    timeout_s: -5', ''].join('\n'),
    );
    expect(errorOf(() => load(file)).message).toMatch(new RegExp(`^${escape(file)}:5: agents\\.echo\\.timeout_s: `));
    const kind = write('kind.yaml', 'agents:\n  x:\n    kind: telepathy\n    command: [a]\n');
    expect(errorOf(() => load(kind)).message).toMatch(/:3: agents\.x\.kind: /);
    const name = write('name.yaml', 'agents:\n  "bad name!":\n    kind: subprocess_cli\n    command: [a]\n');
    expect(errorOf(() => load(name)).message).toMatch(/agents\.bad name!: .*letters, digits/);
  });

  it('refuses unknown keys, top level and in an agent', () => {
    const top = write('top.yaml', 'port: 8791\nprot: 8792\n');
    expect(errorOf(() => load(top)).message).toMatch(/prot/);
    const agent = write(
      'agentkey.yaml',
      'agents:\n  echo:\n    kind: subprocess_cli\n    command: [node]\n    comand: [x]\n',
    );
    expect(errorOf(() => load(agent)).message).toMatch(/agents\.echo.*comand/);
  });

  it('refuses an unknown ${VAR}, naming it and where it is used', () => {
    const file = write('var.yaml', 'agents:\n  echo:\n    kind: subprocess_cli\n    command: ["${NO_SUCH_VAR_42}"]\n');
    const err = errorOf(() => load(file, {}));
    expect(err.message).toContain('${NO_SUCH_VAR_42}');
    expect(err.message).toContain('agents.echo.command.0');
    expect(err.message.startsWith(file)).toBe(true);
  });

  it('expands known variables, the environment and the built-ins', () => {
    const file = write(
      'vars.yaml',
      'agents:\n  echo:\n    kind: subprocess_cli\n    command: ["${CONTACTOR_NODE}", "${CONTACTOR_RESOURCES}/x", "${MY_FLAG}"]\n',
    );
    const { config } = load(file, { MY_FLAG: '--fast' });
    expect(commandOf(config.agents.echo)).toEqual([process.execPath, `${RESOURCES}/x`, '--fast']);
  });

  it('refuses a top level that is not a mapping', () => {
    const file = write('list.yaml', '- port: 1\n');
    expect(errorOf(() => load(file)).message).toContain(file);
  });
});

/**
 * Default locations inside the test's folder, whichever platform's variables (XDG, or %USERPROFILE% and
 * %LOCALAPPDATA%) are read. %APPDATA% (the former Windows default, moved from) points at an empty folder.
 */
function defaultsIn(configBase: string, stateBase?: string): Record<string, string> {
  const env: Record<string, string> = {
    XDG_CONFIG_HOME: configBase,
    USERPROFILE: configBase,
    APPDATA: path.join(configBase, 'roaming'),
  };
  if (stateBase !== undefined) Object.assign(env, { XDG_STATE_HOME: stateBase, LOCALAPPDATA: stateBase });
  return env;
}

/** The default config's folder for defaultsIn(configBase) on this platform. */
function defaultConfigDirIn(configBase: string): string {
  return path.join(configBase, process.platform === 'win32' ? '.contactor' : 'contactor');
}

describe('locations and defaults', () => {
  it('-c wins over CONTACTOR_CONFIG, which wins over the default', () => {
    const env = { CONTACTOR_CONFIG: path.join(dir, 'env.yaml'), ...defaultsIn(path.join(dir, 'xdg')) };
    expect(resolveConfigPath(path.join(dir, 'flag.yaml'), env)).toEqual({
      path: path.join(dir, 'flag.yaml'),
      explicit: true,
    });
    expect(resolveConfigPath(undefined, env)).toEqual({ path: path.join(dir, 'env.yaml'), explicit: true });
    expect(resolveConfigPath(undefined, defaultsIn(path.join(dir, 'xdg')))).toEqual({
      path: path.join(defaultConfigDirIn(path.join(dir, 'xdg')), 'config.yaml'),
      explicit: false,
    });
  });

  it('resolves a relative data_dir against the config file, and defaults the rest', () => {
    const file = write('rel.yaml', 'data_dir: ./state\n');
    const loaded = load(file);
    expect(loaded.dataDir).toBe(path.join(dir, 'state'));
    expect(loaded.config).toMatchObject({
      host: '127.0.0.1',
      port: 8791,
      max_delegation_depth: 3,
      require_token: true,
      agents: {},
    });
    const none = load(write('empty.yaml', ''), {
      XDG_STATE_HOME: path.join(dir, 'st'),
      LOCALAPPDATA: path.join(dir, 'st'),
    });
    expect(none.dataDir).toBe(path.join(dir, 'st', 'contactor'));
  });

  it('creates the default config on first run from the example: valid, user-only, with a working echo agent', () => {
    const env = defaultsIn(path.join(dir, 'xdg'), path.join(dir, 'state'));
    const loaded = load(undefined, env);
    const created = path.join(defaultConfigDirIn(path.join(dir, 'xdg')), 'config.yaml');
    expect(loaded.path).toBe(created);
    expect(readFileSync(created, 'utf8')).toBe(readFileSync(EXAMPLE, 'utf8'));
    if (process.platform !== 'win32') expect(statSync(created).mode & 0o777).toBe(0o600);
    expect(loaded.dataDir).toBe(path.join(dir, 'state', 'contactor'));
    const echo = loaded.config.agents.echo;
    expect(echo?.kind).toBe('subprocess_cli');
    expect(commandOf(echo)[0]).toBe(process.execPath);
    expect(existsSync(commandOf(echo)[1]!)).toBe(true);
    // A second load reads the file it made, and does not rewrite it.
    writeFileSync(created, 'port: 9999\n');
    expect(load(undefined, env).config.port).toBe(9999);
    expect(readdirSync(defaultConfigDirIn(path.join(dir, 'xdg')))).toEqual(['config.yaml']);
  });

  it('on Windows the config is in %USERPROFILE%\\.contactor (moved from %APPDATA%\\contactor), data in LOCALAPPDATA', () => {
    const env = {
      USERPROFILE: 'C:\\Users\\me',
      APPDATA: 'C:\\Users\\me\\AppData\\Roaming',
      LOCALAPPDATA: 'C:\\Users\\me\\AppData\\Local',
      XDG_CONFIG_HOME: '/ignored',
      HOME: '/home/me-in-wsl',
    };
    expect(defaultConfigPath(env, 'win32')).toBe('C:\\Users\\me\\.contactor\\config.yaml');
    expect(legacyConfigPath(env, 'win32')).toBe('C:\\Users\\me\\AppData\\Roaming\\contactor\\config.yaml');
    expect(defaultDataDir(env, 'win32')).toBe('C:\\Users\\me\\AppData\\Local\\contactor');
    expect(legacyConfigPath({ HOME: '/home/me' }, 'linux')).toBeUndefined();
  });

  it('defaultConfigPath and defaultDataDir on Linux use XDG, else HOME', () => {
    const xdg = { XDG_CONFIG_HOME: '/x/config', XDG_STATE_HOME: '/x/state', HOME: '/home/me' };
    expect(defaultConfigPath(xdg, 'linux')).toBe('/x/config/contactor/config.yaml');
    expect(defaultDataDir(xdg, 'linux')).toBe('/x/state/contactor');
    const home = { HOME: '/home/me' };
    expect(defaultConfigPath(home, 'linux')).toBe('/home/me/.config/contactor/config.yaml');
    expect(defaultDataDir(home, 'linux')).toBe('/home/me/.local/state/contactor');
    // XDG base dir spec: an empty value counts as unset.
    const empty = { XDG_CONFIG_HOME: '', XDG_STATE_HOME: '', HOME: '/home/me' };
    expect(defaultConfigPath(empty, 'linux')).toBe('/home/me/.config/contactor/config.yaml');
    expect(defaultDataDir(empty, 'linux')).toBe('/home/me/.local/state/contactor');
  });
});

describe('resources/config.example.yaml', () => {
  const text = readFileSync(EXAMPLE, 'utf8');
  /** Every `key:` the example mentions, commented out or not (loosely: any word before a colon). */
  const mentioned = new Set([...text.matchAll(/(?:^|[\s{,#])([a-z_]+):(?=\s|$)/gm)].map((m) => m[1]!));

  it.each([
    ['top level', keysOf(BridgeConfigSchema)],
    ...AgentConfigSchema.options.map((o) => [`${String(o.shape.kind.value)} agent`, keysOf(o)] as [string, string[]]),
  ])('documents every %s key', (_where, keys) => {
    expect(keys.filter((k) => !mentioned.has(k))).toEqual([]);
  });

  it('validates as it is and offers the echo demo agent', () => {
    const config = parseConfigText(text, EXAMPLE, { CONTACTOR_NODE: process.execPath, CONTACTOR_RESOURCES: RESOURCES });
    expect(Object.keys(config.agents)).toContain('echo');
    expect(config.port).toBe(8791);
  });

  it('has commented examples for dsh, Hermes, Claude Code and Codex', () => {
    for (const name of ['dsh', 'hermes', 'claude', 'codex'])
      expect(text).toMatch(new RegExp(`^\\s*#\\s*${name}:`, 'm'));
  });
});

/** A strict object schema's keys, and the keys of the objects nested in it (history.max_age_days, ...). */
function keysOf(schema: z.ZodObject): string[] {
  return Object.entries(schema.shape).flatMap(([key, field]) => {
    const inner = unwrap(field as z.ZodType);
    return inner instanceof z.ZodObject ? [key, ...keysOf(inner)] : [key];
  });
}

function unwrap(t: z.ZodType): z.ZodType {
  const def = t.def as { innerType?: z.ZodType };
  return def.innerType ? unwrap(def.innerType) : t;
}

function commandOf(agent: AgentConfig | undefined): string[] {
  if (agent?.kind !== 'subprocess_cli' && agent?.kind !== 'acp')
    throw new Error(`not a command agent: ${JSON.stringify(agent)}`);
  return agent.command;
}

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

describe('inheritedAgentEnv', () => {
  it('passes the allow-list (case-insensitive names) and nothing else, never the bridge token', () => {
    const env = {
      PATH: '/bin',
      HOME: '/h',
      LC_ALL: 'C',
      https_proxy: 'x',
      Path: 'p',
      API_KEY: 'secret',
      CONTACTOR_TOKEN: 'bridge-secret',
      UNSET: undefined,
    };
    expect(inheritedAgentEnv(env)).toEqual({
      PATH: '/bin',
      HOME: '/h',
      LC_ALL: 'C',
      https_proxy: 'x',
      Path: 'p',
    });
    // Never ELECTRON_RUN_AS_NODE, even inside Electron: it is set at spawn for the app's own exe only.
    expect(inheritedAgentEnv({ PATH: '/bin', ELECTRON_RUN_AS_NODE: '1' })).toEqual({ PATH: '/bin' });
  });
});
