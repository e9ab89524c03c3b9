/**
 * `skill install` registers `contactor mcp` with the MCP clients installed in a temp HOME (stand-in config
 * files of Claude Code, Codex, Gemini CLI, OpenCode and Qwen Code), through the real CLI: only after --yes
 * (no terminal to ask on), each file backed up first, every other byte kept, never twice; and `doctor`
 * tells registered, not registered, and registered with a command that is not there.
 */
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, cleanEnv, runCli } from './run-cli.js';
import { KEY, startOnPty } from './top/pty-screen.js';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'contactor-mcp-register-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const REGISTER = '`contactor skill install` registers it (asks first; --yes to skip the question)';

type ClientName = 'claude' | 'codex' | 'gemini' | 'opencode' | 'qwen';

const CLAUDE_BEFORE = '{\n  "numStartups": 3,\n  "projects": {}\n}\n';
const CLAUDE_AFTER = [
  '{',
  '  "mcpServers": {',
  '    "contactor": {',
  '      "type": "stdio",',
  '      "command": "contactor",',
  '      "args": [',
  '        "mcp"',
  '      ],',
  '      "env": {}',
  '    }',
  '  },',
  '  "numStartups": 3,',
  '  "projects": {}',
  '}',
  '',
].join('\n');
const CODEX_BEFORE = 'model = "o3"\n';
const CODEX_AFTER = 'model = "o3"\n\n[mcp_servers.contactor]\ncommand = "contactor"\nargs = ["mcp"]\n';
const GEMINI_BEFORE = '{\n  // dark, always\n  "theme": "GitHub",\n  "mcpServers": {}\n}\n';
const GEMINI_AFTER = [
  '{',
  '  // dark, always',
  '  "theme": "GitHub",',
  '  "mcpServers": {',
  '    "contactor": {',
  '      "command": "contactor",',
  '      "args": [',
  '        "mcp"',
  '      ]',
  '    }',
  '  }',
  '}',
  '',
].join('\n');
const OPENCODE_BEFORE = '{ "$schema": "https://opencode.ai/config.json" }\n';
const OPENCODE_AFTER = [
  '{',
  '  "mcp": {',
  '    "contactor": {',
  '      "type": "local",',
  '      "command": [',
  '        "contactor",',
  '        "mcp"',
  '      ],',
  '      "enabled": true',
  '    }',
  '  }, "$schema": "https://opencode.ai/config.json" }',
  '',
].join('\n');
const QWEN_AFTER =
  '{\n  "mcpServers": {\n    "contactor": {\n      "command": "contactor",\n      "args": [\n        "mcp"\n      ]\n    }\n  }\n}\n';

/** A HOME where all five clients have run, and a PATH whose `contactor` is a stand-in. */
function machine(): { home: string; env: Record<string, string>; files: Record<ClientName, string> } {
  const home = mkdtempSync(path.join(dir, 'home-'));
  const bin = path.join(home, 'bin');
  mkdirSync(bin);
  const standIn = path.join(bin, process.platform === 'win32' ? 'contactor.exe' : 'contactor');
  writeFileSync(standIn, '#!/bin/sh\nexit 0\n');
  chmodSync(standIn, 0o755);
  const files = {
    claude: path.join(home, '.claude.json'),
    codex: path.join(home, '.codex', 'config.toml'),
    gemini: path.join(home, '.gemini', 'settings.json'),
    opencode: path.join(home, '.config', 'opencode', 'opencode.json'),
    qwen: path.join(home, '.qwen', 'settings.json'),
  };
  for (const d of ['.claude', '.codex', '.gemini', path.join('.config', 'opencode'), '.qwen'])
    mkdirSync(path.join(home, d), { recursive: true });
  writeFileSync(files.claude, CLAUDE_BEFORE);
  writeFileSync(files.codex, CODEX_BEFORE);
  writeFileSync(files.gemini, GEMINI_BEFORE);
  writeFileSync(files.opencode, OPENCODE_BEFORE);
  const env = cleanEnv(home, { PATH: `${bin}${path.delimiter}${process.env.PATH ?? ''}` });
  return { home, env, files };
}

function read(file: string): string {
  return readFileSync(file, 'utf8');
}

describe('skill install registers contactor mcp', () => {
  it('--yes: each client gets the one entry, backed up first; a second run changes nothing', async () => {
    const { env, files } = machine();
    const run = await runCli(['skill', 'install', '--yes'], { env });
    expect(run.code).toBe(0);
    expect(read(files.claude)).toBe(CLAUDE_AFTER);
    expect(read(files.codex)).toBe(CODEX_AFTER);
    expect(read(files.gemini)).toBe(GEMINI_AFTER);
    expect(read(files.opencode)).toBe(OPENCODE_AFTER);
    expect(read(files.qwen)).toBe(QWEN_AFTER);
    expect(read(`${files.claude}.contactor-backup`)).toBe(CLAUDE_BEFORE);
    expect(read(`${files.codex}.contactor-backup`)).toBe(CODEX_BEFORE);
    expect(read(`${files.gemini}.contactor-backup`)).toBe(GEMINI_BEFORE);
    expect(read(`${files.opencode}.contactor-backup`)).toBe(OPENCODE_BEFORE);
    expect(existsSync(`${files.qwen}.contactor-backup`)).toBe(false); // there was no file to keep
    expect(run.stdout).toContain(
      `registered contactor mcp with claude in ${files.claude} (backup: ${files.claude}.contactor-backup)`,
    );
    expect(run.stdout).toContain(`registered contactor mcp with qwen in ${files.qwen}\n`);

    const again = await runCli(['skill', 'install', '--yes', '--json'], { env });
    expect(again.json<{ mcp: unknown }>().mcp).toEqual([
      { client: 'claude', file: files.claude, status: 'already registered' },
      { client: 'codex', file: files.codex, status: 'already registered' },
      { client: 'gemini', file: files.gemini, status: 'already registered' },
      { client: 'qwen', file: files.qwen, status: 'already registered' },
      { client: 'opencode', file: files.opencode, status: 'already registered' },
    ]);
    expect([read(files.claude), read(files.codex), read(files.gemini), read(files.opencode), read(files.qwen)]).toEqual(
      [CLAUDE_AFTER, CODEX_AFTER, GEMINI_AFTER, OPENCODE_AFTER, QWEN_AFTER],
    );
  });

  it('never registers beside an entry the person wrote, whatever it points at', async () => {
    const { env, files } = machine();
    const mine = '{\n  "mcpServers": { "contactor": { "command": "/opt/my/contactor", "args": ["mcp"] } }\n}\n';
    writeFileSync(files.gemini, mine);
    await runCli(['skill', 'install', '--yes', '--for', 'gemini'], { env });
    expect(read(files.gemini)).toBe(mine);
    expect(existsSync(`${files.gemini}.contactor-backup`)).toBe(false);
  });

  it('without --yes and no terminal to ask on: nothing written, and the note says how', async () => {
    const { env, files } = machine();
    const run = await runCli(['skill', 'install'], { env });
    expect(run.code).toBe(0);
    expect([read(files.claude), read(files.codex), read(files.gemini), read(files.opencode)]).toEqual([
      CLAUDE_BEFORE,
      CODEX_BEFORE,
      GEMINI_BEFORE,
      OPENCODE_BEFORE,
    ]);
    expect(existsSync(files.qwen)).toBe(false);
    expect(run.stderr).toContain(
      'not registered with claude, codex, gemini, qwen, opencode (not asked: no terminal); `contactor skill install --yes` registers contactor mcp with them',
    );
  });

  it('on a terminal it asks once per client and writes only where the answer is yes', async () => {
    const { env, files } = machine();
    const s = startOnPty(process.execPath, [CLI, 'skill', 'install', '--for', 'claude,codex'], {
      env,
      cols: 300,
      rows: 40,
    });
    try {
      await s.shows(`Register contactor's MCP server with Claude Code (${files.claude})? [y/N]`);
      s.type(`y${KEY.enter}`);
      await s.shows(`Register contactor's MCP server with Codex (${files.codex})? [y/N]`);
      s.type(`n${KEY.enter}`);
      expect((await s.exited).exitCode).toBe(0);
      await s.shows(`registered contactor mcp with claude in ${files.claude}`);
    } finally {
      s.kill();
    }
    expect(read(files.claude)).toBe(CLAUDE_AFTER);
    expect(read(files.codex)).toBe(CODEX_BEFORE);
    expect(existsSync(`${files.codex}.contactor-backup`)).toBe(false);
  });

  it('--no-mcp leaves every client config alone', async () => {
    const { env, files } = machine();
    await runCli(['skill', 'install', '--yes', '--no-mcp'], { env });
    expect(read(files.claude)).toBe(CLAUDE_BEFORE);
  });
});

describe('doctor checks each installed client', () => {
  it('registered, not registered, and registered with a command that is not there', async () => {
    const { env, files } = machine();
    await runCli(['skill', 'install', '--yes', '--for', 'claude,codex'], { env });
    writeFileSync(
      files.gemini,
      '{ "mcpServers": { "contactor": { "command": "/nowhere/contactor", "args": ["mcp"] } } }\n',
    );
    // A config that does not parse: doctor then reaches no bridge at all (never the default address).
    const config = path.join(path.dirname(files.claude), 'unreadable.yaml');
    writeFileSync(config, `data_dir: ${JSON.stringify(path.join(path.dirname(files.claude), 'data'))}\nagents: [\n`);
    const run = await runCli(['doctor', '--json', '-c', config], { env });
    expect(run.stdout).not.toContain('8791');
    const checks = run
      .json<{ checks: { name: string; status: string; detail: string }[] }>()
      .checks.filter((c) => c.name.startsWith('mcp '));
    expect(checks.map(({ name, status, detail }) => ({ name, status, detail }))).toEqual([
      { name: 'mcp claude', status: 'ok', detail: `registered in ${files.claude}` },
      { name: 'mcp codex', status: 'ok', detail: `registered in ${files.codex}` },
      {
        name: 'mcp gemini',
        status: 'fail',
        detail: `Gemini CLI has contactor registered in ${files.gemini}, but its command /nowhere/contactor is not found`,
      },
      {
        name: 'mcp qwen',
        status: 'skip',
        detail: `Qwen Code does not have contactor among its MCP servers (${files.qwen}); ${REGISTER}`,
      },
      {
        name: 'mcp opencode',
        status: 'skip',
        detail: `OpenCode does not have contactor among its MCP servers (${files.opencode}); ${REGISTER}`,
      },
    ]);
  });
});
