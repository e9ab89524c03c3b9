/**
 * A misspelled required key (`comand:`) is named, with its own file:line and the key it most likely meant,
 * instead of "command: expected array, received undefined" pointing at the agent.
 */
import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfigText } from '../../main/config/config.js';
import { editDistance, likelyTypo } from '../../main/config/key-suggestion.js';

function errorOf(text: string): string {
  try {
    parseConfigText(text, '/cfg/config.yaml', {});
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as Error).message;
  }
  throw new Error('the config was accepted');
}

describe('a misspelled required key', () => {
  it('names the unknown key where it is written and the key it meant', () => {
    const message = errorOf('port: 0\nagents:\n  shout:\n    kind: subprocess_cli\n    comand: [echo]\n');
    expect(message).toBe(
      '/cfg/config.yaml:5: agents.shout.comand: unknown key; did you mean `command`? (agents.shout.command is required: expected array)',
    );
  });

  it('points at the key, not its value, when the value starts on the next line', () => {
    const message = errorOf('agents:\n  shout:\n    kind: acp\n\n    Command:\n      - echo\n');
    expect(message).toMatch(/^\/cfg\/config\.yaml:5: agents\.shout\.Command: unknown key; did you mean `command`\?/);
  });

  it('an unknown key too far from the missing one is listed with its line, not guessed at', () => {
    const message = errorOf('agents:\n  shout:\n    kind: subprocess_cli\n    program: [echo]\n');
    expect(message).toBe(
      '/cfg/config.yaml:2: agents.shout.command: missing: expected array; the unknown key next to it: `program` (/cfg/config.yaml:4)',
    );
  });

  it('a missing key with no unknown key beside it keeps the plain message', () => {
    expect(errorOf('agents:\n  shout:\n    kind: subprocess_cli\n')).toBe(
      '/cfg/config.yaml:3: agents.shout.command: Invalid input: expected array, received undefined',
    );
  });
});

describe('editDistance / likelyTypo', () => {
  it('counts insertions, deletions and substitutions', () => {
    expect(editDistance('comand', 'command')).toBe(1);
    expect(editDistance('kitten', 'sitting')).toBe(3);
    expect(editDistance('', 'abc')).toBe(3);
  });

  it('picks the closest key within reach, else none', () => {
    expect(likelyTypo('command', ['cwd', 'comand', 'commands'])).toBe('comand');
    expect(likelyTypo('command', ['program'])).toBeUndefined();
  });
});

describe('an unknown key', () => {
  it('an optional key misspelled: its own line, and the key it meant', () => {
    const message = errorOf('agents:\n  shout:\n    kind: subprocess_cli\n    command: [echo]\n    timout_s: 30\n');
    expect(message).toBe('/cfg/config.yaml:5: agents.shout.timout_s: unknown key; did you mean `timeout_s`?');
  });

  it('a top-level typo far down the file: its own line, not the first line of the file', () => {
    const agents = Array.from({ length: 6 }, (_, i) => `  a${i}:\n    kind: subprocess_cli\n    command: [echo]\n`);
    const text = `# contactor\n\nport: 0\nagents:\n${agents.join('')}\nmax_concurent_tasks: 4\n`;
    expect(text.split('\n')[23]).toBe('max_concurent_tasks: 4');
    expect(errorOf(text)).toBe(
      '/cfg/config.yaml:24: max_concurent_tasks: unknown key; did you mean `max_concurrent_tasks`?',
    );
  });

  it('api_key: where the key goes instead', () => {
    const message = errorOf(
      'agents:\n  local:\n    kind: http_api\n    base_url: http://127.0.0.1:1/v1\n    model: m\n    api_key: sk-123\n',
    );
    expect(message).toBe(
      '/cfg/config.yaml:6: agents.local.api_key: unknown key; the api_key itself never goes in config.yaml: put it in an environment variable and name that variable in `api_key_env`',
    );
  });

  it('several unknown keys: one line each, a suggestion only where one is close', () => {
    const message = errorOf(
      'agents:\n  shout:\n    kind: acp\n    command: [echo]\n    idle_timeout: 5\n    colour: red\nprot: 1\n',
    );
    expect(message).toBe(
      [
        '/cfg/config.yaml:5: agents.shout.idle_timeout: unknown key; did you mean `idle_timeout_s`?',
        '/cfg/config.yaml:6: agents.shout.colour: unknown key',
        '/cfg/config.yaml:7: prot: unknown key; did you mean `port`?',
      ].join('\n'),
    );
  });
});
