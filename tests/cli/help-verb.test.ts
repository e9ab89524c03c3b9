/**
 * `contactor help <verb>` prints that verb's help (exit 0), as `<verb> --help` does; an unknown verb is one
 * error line and exit 2 (it used to print the whole help on stderr with exit 2 and no word why). `scan`
 * finding nothing says what to install and how to add an agent by hand.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, runCli } from './run-cli.js';

let dir: string;
let env: Record<string, string>;

beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'contactor-help-'));
  env = cleanEnv(dir);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('help <verb>', () => {
  it("prints that verb's help on stdout, exit 0, the same as --help", async () => {
    const [help, flag, nested] = await Promise.all([
      runCli(['help', 'send'], { env }),
      runCli(['send', '--help'], { env }),
      runCli(['help', 'token', 'rotate'], { env }),
    ]);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^Usage: contactor send /);
    expect(help.stdout).toBe(flag.stdout);
    expect(nested.stdout).toMatch(/^Usage: contactor token rotate /);
    expect(nested.code).toBe(0);
  });

  it('an unknown verb: one error line naming it (and a likely one), exit 2', async () => {
    const [setup, typo] = await Promise.all([runCli(['help', 'setup'], { env }), runCli(['help', 'sned'], { env })]);
    expect(setup.stderr).toBe(
      'contactor: no command "setup" (`contactor --help` lists them; setting up is `contactor scan`, `contactor doctor` and `contactor skill install`)\n',
    );
    expect(setup.stdout).toBe('');
    expect(setup.code).toBe(2);
    expect(typo.stderr).toContain('no command "sned"; did you mean `contactor send`?');
    expect(typo.code).toBe(2);
  });

  it('bare contactor prints the full help on stdout, exit 0 (it was stderr and exit 2)', async () => {
    const [bare, help] = await Promise.all([runCli([], { env }), runCli(['help'], { env })]);
    expect(bare.stdout).toMatch(/^Usage: contactor \[options\] \[command\]/);
    expect(bare.stdout).toBe(help.stdout);
    expect(bare.stderr).toBe('');
    expect(bare.code).toBe(0);
  });

  it('help alone is the full help with the exit codes', async () => {
    const run = await runCli(['help'], { env });
    expect(run.stdout).toContain('Exit codes:');
    expect(run.code).toBe(0);
  });
});

describe('scan finding nothing', () => {
  it('says what to install, to scan again, and how to add an agent by hand', async () => {
    const empty = path.join(dir, 'empty-bin');
    mkdirSync(empty, { recursive: true });
    const run = await runCli(['scan'], { env: { ...env, PATH: empty } });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('install one, then run `contactor scan` again:');
    expect(run.stdout).toContain('  npm install -g @google/gemini-cli   # Gemini CLI (ACP mode): gemini');
    expect(run.stdout).toContain('or add any agent by hand (`contactor config edit`)');
    expect(run.stdout).toContain('    mine: { kind: subprocess_cli, command: [my-agent, --flag] }');
    expect(run.stdout).not.toContain('contactor setup');
    const json = await runCli(['scan', '--json'], { env: { ...env, PATH: empty } });
    expect(json.json<{ suggestions: string[] }>().suggestions).toContain(
      'install one, then run `contactor scan` again:',
    );
  });
});
