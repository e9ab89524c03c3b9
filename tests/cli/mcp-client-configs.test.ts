/**
 * The one edit `skill install` makes to an MCP client's config: the contactor entry added in the client's
 * shape, every other byte of the file kept (comments, order, spacing). Inputs and outputs are written out.
 */
import { describe, expect, it } from 'vitest';
import { registeredCommand, withServer } from '../../main/cli/mcp-clients/clients.js';

const SERVER = { command: 'contactor', args: ['mcp'] };

describe('JSON settings (Claude Code, Gemini CLI, Qwen Code, OpenCode)', () => {
  it('Claude Code: added first to the mcpServers it has, the rest of ~/.claude.json untouched', () => {
    const before = [
      '{',
      '  "numStartups": 12,',
      '  "mcpServers": {',
      '    "other": { "command": "other-server" }',
      '  },',
      '  "projects": {"/home/me/p": {"allowedTools": []}}',
      '}',
      '',
    ].join('\n');
    expect(withServer('claude', before, SERVER)).toBe(
      [
        '{',
        '  "numStartups": 12,',
        '  "mcpServers": {',
        '    "contactor": {',
        '      "type": "stdio",',
        '      "command": "contactor",',
        '      "args": [',
        '        "mcp"',
        '      ],',
        '      "env": {}',
        '    },',
        '    "other": { "command": "other-server" }',
        '  },',
        '  "projects": {"/home/me/p": {"allowedTools": []}}',
        '}',
        '',
      ].join('\n'),
    );
  });

  it('Gemini CLI: a settings.json with comments and a trailing comma gets mcpServers, comments kept', () => {
    const before = [
      '{',
      '    // my theme',
      '    "theme": "GitHub", /* the "mcpServers" of a comment is not a key */',
      '    "nested": { "mcpServers": {} },',
      '}',
      '',
    ].join('\n');
    const after = withServer('gemini', before, SERVER);
    expect(after).toBe(
      [
        '{',
        '    "mcpServers": {',
        '        "contactor": {',
        '            "command": "contactor",',
        '            "args": [',
        '                "mcp"',
        '            ]',
        '        }',
        '    },',
        '    // my theme',
        '    "theme": "GitHub", /* the "mcpServers" of a comment is not a key */',
        '    "nested": { "mcpServers": {} },',
        '}',
        '',
      ].join('\n'),
    );
    expect(registeredCommand('gemini', after, 'settings.json')).toEqual({ registered: true, command: 'contactor' });
    expect(registeredCommand('gemini', before, 'settings.json')).toEqual({ registered: false });
  });

  it('OpenCode: one command array under mcp, type local, into an empty mcp object', () => {
    const before = '{\n  "$schema": "https://opencode.ai/config.json",\n  "mcp": {}\n}\n';
    expect(withServer('opencode', before, SERVER)).toBe(
      [
        '{',
        '  "$schema": "https://opencode.ai/config.json",',
        '  "mcp": {',
        '    "contactor": {',
        '      "type": "local",',
        '      "command": [',
        '        "contactor",',
        '        "mcp"',
        '      ],',
        '      "enabled": true',
        '    }',
        '  }',
        '}',
        '',
      ].join('\n'),
    );
  });

  it('a file with CRLF line ends keeps them, and a quoted brace in a string is not taken for structure', () => {
    const before = '{\r\n  "note": "a } and a \\" {",\r\n  "mcpServers": {}\r\n}\r\n';
    expect(withServer('gemini', before, SERVER)).toBe(
      [
        '{',
        '  "note": "a } and a \\" {",',
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
      ].join('\r\n'),
    );
  });

  it('a missing or empty file becomes the entry alone', () => {
    expect(withServer('qwen', '', SERVER)).toBe(
      '{\n  "mcpServers": {\n    "contactor": {\n      "command": "contactor",\n      "args": [\n        "mcp"\n      ]\n    }\n  }\n}\n',
    );
  });

  it('a file that is not JSON is refused with its name, not overwritten', () => {
    expect(() => registeredCommand('gemini', '{ "theme": ', '/h/.gemini/settings.json')).toThrow(
      /^\/h\/\.gemini\/settings\.json is not valid JSON/,
    );
  });
});

describe("Codex's config.toml", () => {
  const before = [
    'model = "o3" # the default',
    '',
    '[mcp_servers.other]',
    'command = "other-server"',
    'args = ["--stdio"]',
    '',
  ].join('\n');

  it('gets one [mcp_servers.contactor] table appended, every other line kept', () => {
    expect(withServer('codex', before, { command: 'C:\\Program Files\\contactor\\contactor.exe', args: ['mcp'] })).toBe(
      [
        'model = "o3" # the default',
        '',
        '[mcp_servers.other]',
        'command = "other-server"',
        'args = ["--stdio"]',
        '',
        '[mcp_servers.contactor]',
        'command = "C:\\\\Program Files\\\\contactor\\\\contactor.exe"',
        'args = ["mcp"]',
        '',
      ].join('\n'),
    );
  });

  it('finds the server in each form TOML allows, and not in another server', () => {
    const forms: [string, unknown][] = [
      [before, { registered: false }],
      ['[mcp_servers.contactor]\ncommand = "contactor"\n', { registered: true, command: 'contactor' }],
      ["[mcp_servers.'contactor']\ncommand = '/opt/c/contactor'\n", { registered: true, command: '/opt/c/contactor' }],
      [
        '[mcp_servers]\ncontactor = { command = "contactor", args = ["mcp"] }\n',
        { registered: true, command: 'contactor' },
      ],
      ['mcp_servers.contactor.command = "contactor"\n', { registered: true, command: 'contactor' }],
      // A sub-table names the server too (TOML defines its parent): never a second one beside it.
      ['[mcp_servers.contactor.env]\nX = "1"\n', { registered: true, command: undefined }],
      ['[mcp_servers.contactor2]\ncommand = "x"\n', { registered: false }],
      ['# [mcp_servers.contactor]\n', { registered: false }],
    ];
    expect(forms.map(([text]) => registeredCommand('codex', text, 'config.toml'))).toEqual(
      forms.map(([, want]) => want),
    );
  });

  it('an mcp_servers inline table is left for the person to edit', () => {
    expect(() => registeredCommand('codex', 'mcp_servers = { other = { command = "x" } }\n', 'config.toml')).toThrow(
      'config.toml: it defines mcp_servers as one inline table',
    );
  });
});
