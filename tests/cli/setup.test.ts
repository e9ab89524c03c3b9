/** The setup verbs, as a new user meets them: config, doctor, scan, skill install, token rotate. */
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, startTestBridge, type TestBridge } from '../helpers/bridge.js';
import { skillHome } from '../../main/cli/commands/setup.js';
import { cleanEnv, defaultConfigIn, runCli } from './run-cli.js';

let dir: string;
let env: Record<string, string>;

beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'contactor-setup-'));
  env = cleanEnv(dir);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function writeConfig(name: string, text: string): string {
  const file = path.join(dir, name);
  writeFileSync(file, text);
  return file;
}

describe('config', () => {
  it('path prints the platform default (XDG_CONFIG_HOME; on Windows %USERPROFILE%\\.contactor)', async () => {
    const run = await runCli(['config', 'path'], { env });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(defaultConfigIn(dir));
  });

  it('check says OK for a valid file and gives file:line for a bad one (exit 2)', async () => {
    const good = writeConfig('good.yaml', 'port: 0\nagents: {}\n');
    const ok = await runCli(['config', 'check', '-c', good], { env });
    expect(ok.code).toBe(0);
    expect(ok.stdout).toContain(`OK ${good}`);
    const bad = writeConfig('bad.yaml', 'port: 0\nagents:\n  echo:\n    kind: subprocess_cli\n    command: []\n');
    const run = await runCli(['config', 'check', '-c', bad], { env });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`${bad}:5: agents.echo.command:`);
  });
});

describe('doctor', () => {
  it('explains a broken config with its fix and exits 2', async () => {
    const broken = writeConfig('broken.yaml', `data_dir: ${path.join(dir, 'data')}\nagents:\n  echo: [not, a, map\n`);
    const run = await runCli(['doctor', '-c', broken], { env });
    expect(run.code).toBe(2);
    expect(run.stdout).toMatch(
      new RegExp(`✗ config: ${broken.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}:\\d+: invalid YAML`),
    );
    expect(run.stdout).toContain('fix: edit it (`contactor config edit`)');
    // No discovery file and no valid config: it must not probe the default address (the user's own bridge).
    expect(run.stdout).toContain('✗ bridge: not checked: no discovery file, and the config above is invalid');
    expect(run.stdout).not.toContain('8791');
  });

  it('passes every check against a running bridge, and flags a missing agent program', async () => {
    const bridge: TestBridge = await startTestBridge();
    try {
      const ok = await runCli(['doctor', '-c', bridge.configPath, '--json'], { env });
      const report = ok.json<{ ok: boolean; checks: { name: string; status: string }[] }>();
      expect(report.checks.map((c) => `${c.name}:${c.status}`)).toEqual([
        'config:ok',
        'agent echo:ok',
        'wsl:skip',
        'discovery file:ok',
        // Windows: the per-user profile's ACL protects the data dir; modes are not checked there.
        `data dir permissions:${process.platform === 'win32' ? 'skip' : 'ok'}`,
        'bridge:ok',
        'token:ok',
        'config in use:ok',
      ]);
      expect(ok.code).toBe(0);

      const missing = writeConfig(
        'missing.yaml',
        `data_dir: ${bridge.dataDir}\nagents:\n  ghost: { kind: subprocess_cli, command: [no-such-agent-program] }\n`,
      );
      const run = await runCli(['doctor', '-c', missing], { env });
      expect(run.code).toBe(2);
      expect(run.stdout).toContain('✗ agent ghost: no-such-agent-program not found on PATH');
      expect(run.stdout).toContain('agents.ghost.command');

      // A known agent's program that is missing: doctor names the npm package that provides it.
      const known = writeConfig(
        'known-missing.yaml',
        `data_dir: ${bridge.dataDir}\nagents:\n  gem: { kind: acp, command: [gemini, --acp] }\n`,
      );
      const hint = await runCli(['doctor', '-c', known], { env: { ...env, PATH: path.join(dir, 'empty-bin') } });
      expect(hint.stdout).toContain('✗ agent gem: gemini not found on PATH');
      expect(hint.stdout).toContain('`npm install -g @google/gemini-cli`');
    } finally {
      await bridge.cleanup();
    }
  });
});

describe('scan', () => {
  it('finds a known agent program on PATH and proposes a config entry', async () => {
    const bin = path.join(dir, 'fake-bin');
    mkdirSync(bin, { recursive: true });
    writeFileSync(path.join(bin, 'codex-acp'), '#!/bin/sh\nexit 0\n');
    chmodSync(path.join(bin, 'codex-acp'), 0o755);
    const run = await runCli(['scan'], { env: { ...env, PATH: bin } });
    expect(run.code).toBe(0);
    expect(run.stderr).toContain(`found Codex (ACP adapter): ${path.join(bin, 'codex-acp')}`);
    expect(run.stdout).toMatch(/agents:\n {2}codex:\n {4}kind: acp\n {4}command:\n {6}- codex-acp/);
    const json = await runCli(['scan', '--json'], { env: { ...env, PATH: bin } });
    expect(json.json<{ found: { name: string }[] }>().found.map((f) => f.name)).toEqual(['codex']);
  });
});

describe('skill install', () => {
  it('--for claude writes SKILL.md where Claude Code looks for skills', async () => {
    const home = mkdtempSync(path.join(dir, 'home-'));
    const run = await runCli(['skill', 'install', '--for', 'claude'], { env: cleanEnv(home) });
    expect(run.code).toBe(0);
    const target = path.join(home, '.claude', 'skills', 'contactor', 'SKILL.md');
    expect(run.stdout).toContain(target);
    expect(readFileSync(target, 'utf8')).toBe(readFileSync(path.join(REPO_ROOT, 'SKILL.md'), 'utf8'));
  });

  it('--dir overrides the folder; an unknown agent is exit 2', async () => {
    const target = path.join(dir, 'skills-here');
    const run = await runCli(['skill', 'install', '--for', 'dsh', '--dir', target, '--json'], { env });
    expect(run.json<{ installed: { path: string }[] }>().installed).toEqual([
      { agent: 'dsh', path: path.join(target, 'SKILL.md') },
    ]);
    const bad = await runCli(['skill', 'install', '--for', 'notepad'], { env });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('claude, codex, gemini, opencode, hermes, dsh');
  });

  it('gemini and opencode get it in their own skills folders', async () => {
    const home = mkdtempSync(path.join(dir, 'home-'));
    const run = await runCli(['skill', 'install', '--for', 'gemini,opencode'], { env: cleanEnv(home) });
    expect(run.code).toBe(0);
    const gemini = path.join(home, '.gemini', 'skills', 'contactor', 'SKILL.md');
    // cleanEnv sets XDG_CONFIG_HOME to <home>/.config: OpenCode's global config folder.
    const opencode = path.join(home, '.config', 'opencode', 'skills', 'contactor', 'SKILL.md');
    expect(run.stdout).toBe(
      `installed SKILL.md for gemini at ${gemini}\ninstalled SKILL.md for opencode at ${opencode}\n`,
    );
    expect(readFileSync(opencode, 'utf8')).toBe(readFileSync(path.join(REPO_ROOT, 'SKILL.md'), 'utf8'));
  });

  it('without --for: only the agents installed here, each absent one skipped with a line', async () => {
    const home = mkdtempSync(path.join(dir, 'home-'));
    mkdirSync(path.join(home, '.codex'));
    mkdirSync(path.join(home, '.gemini'));
    const run = await runCli(['skill', 'install'], { env: cleanEnv(home) });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(
      `installed SKILL.md for codex at ${path.join(home, '.codex', 'skills', 'contactor', 'SKILL.md')}`,
    );
    expect(run.stdout).toContain('installed SKILL.md for gemini at');
    expect(run.stdout).toContain(`skipped claude: not installed here (no ${path.join(home, '.claude')})`);
    expect(run.stdout).toContain('skipped opencode: not installed here');
    expect(existsSync(path.join(home, '.claude'))).toBe(false);
    // Nothing installed at all: say so, and how to name one.
    const empty = await runCli(['skill', 'install'], { env: cleanEnv(mkdtempSync(path.join(dir, 'home-'))) });
    expect(empty.stderr).toContain('no agent to install the skill for');
    expect(empty.stderr).toContain('`--for <agent>`');
    expect(empty.code).toBe(2);
  });
});

describe('skill install through the WSL wrapper', () => {
  it('installs into the home the wrapper names (CONTACTOR_WSL_HOME), laid out as on Linux even for a Windows CLI', async () => {
    const winHome = mkdtempSync(path.join(dir, 'win-home-'));
    const wslHome = mkdtempSync(path.join(dir, 'wsl-home-'));
    const run = await runCli(['skill', 'install', '--for', 'claude', '--json'], {
      env: cleanEnv(winHome, { CONTACTOR_WSL_HOME: wslHome }),
    });
    expect(run.json<{ installed: { path: string }[] }>().installed[0]!.path).toBe(
      path.join(wslHome, '.claude', 'skills', 'contactor', 'SKILL.md'),
    );
    // Hermes on Windows reads %LOCALAPPDATA%; the WSL Hermes reads ~/.hermes.
    expect(skillHome({ CONTACTOR_WSL_HOME: '//wsl.localhost/Ubuntu/home/me', HOME: 'C:\\Users\\me' }, 'win32')).toEqual(
      {
        home: '//wsl.localhost/Ubuntu/home/me',
        platform: 'linux',
      },
    );
    expect(skillHome({ HOME: 'C:\\Users\\me' }, 'win32')).toEqual({ home: 'C:\\Users\\me', platform: 'win32' });
  });
});

describe('token rotate', () => {
  it('writes a new token file (0600) and says the bridge must restart', async () => {
    const data = path.join(dir, 'token-data');
    mkdirSync(data, { recursive: true });
    const run = await runCli(['token', 'rotate', '--data-dir', data], { env });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('restart the bridge');
    const first = readFileSync(path.join(data, 'token'), 'utf8');
    // Windows has no POSIX modes (Node reports 0o666 for any writable file); the data dir's ACL guards it there.
    if (process.platform !== 'win32') expect(statSync(path.join(data, 'token')).mode & 0o777).toBe(0o600);
    await runCli(['token', 'rotate', '--data-dir', data], { env });
    expect(readFileSync(path.join(data, 'token'), 'utf8')).not.toBe(first);
    const shown = await runCli(['token', '--data-dir', data], { env });
    expect(shown.stdout.trim()).toBe(readFileSync(path.join(data, 'token'), 'utf8').trim());
  });
});
