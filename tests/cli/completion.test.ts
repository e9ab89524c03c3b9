/**
 * `contactor completion bash|zsh|fish|powershell`. bash, zsh and fish run the script the real CLI prints and
 * complete real command lines (agent names come from the config through the real `contactor`); PowerShell is
 * not on this machine, so its script is pinned for a small literal command tree.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { completionScript } from '../../main/cli/completion/completion-scripts.js';
import { CLI, cleanEnv, runCli } from './run-cli.js';

const run = promisify(execFile);

let dir: string;
let env: Record<string, string>;

beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'contactor-completion-'));
  const bin = path.join(dir, 'bin');
  mkdirSync(bin);
  symlinkSync(CLI, path.join(bin, 'contactor'));
  const config = path.join(dir, 'config.yaml');
  writeFileSync(config, 'agents:\n  alpha:\n    backend: acp\n  beta:\n    backend: subprocess_cli\n');
  env = cleanEnv(dir, { PATH: `${bin}${path.delimiter}${process.env.PATH}`, CONTACTOR_CONFIG: config });
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function scriptFor(shell: string): Promise<string> {
  const printed = await runCli(['completion', shell], { env });
  expect(printed.code).toBe(0);
  const file = path.join(dir, `completion.${shell}`);
  writeFileSync(file, printed.stdout);
  return file;
}

/** What each shell offers for a command line (its last word being completed), one candidate a line. */
const COMPLETE: Record<string, (script: string, words: string[]) => [string, string[]]> = {
  bash: (script, words) => [
    'bash',
    [
      '--norc',
      '-c',
      `source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _contactor; printf '%s\\n' "\${COMPREPLY[@]}"`,
      'bash',
      script,
      ...words,
    ],
  ],
  zsh: (script, words) => [
    'zsh',
    [
      '-f',
      '-c',
      // compadd and compdef are compsys's; outside a completion, compadd prints what it would offer: the
      // candidates that start with the word being completed, as compsys matches by default.
      `compadd() { [[ $1 == -- ]] && shift; local c; for c in "$@"; do [[ $c == "\${words[CURRENT]}"* ]] && print -r -- "$c"; done; return 0; }; compdef() { :; }; source "$1"; shift; words=("$@"); CURRENT=$#; _contactor`,
      'zsh',
      script,
      ...words,
    ],
  ],
  fish: (script, words) => [
    'fish',
    ['--no-config', '-c', `source $argv[1]; complete -C (string join ' ' -- $argv[2..-1])`, script, ...words],
  ],
};

/** Command line (last word: what is typed so far) → what is offered, in the script's order. */
const CASES: [string[], string[]][] = [
  [
    ['contactor', 'se'],
    ['serve', 'send'],
  ],
  [['contactor', 'tasks', '--st'], ['--state']],
  [['contactor', 'token', ''], ['rotate']],
  [
    ['contactor', 'send', ''],
    ['alpha', 'beta'],
  ],
  [['contactor', '-c', 'send', 'logs', 'a'], ['alpha']],
  [['contactor', 'send', 'alpha', ''], []],
];

describe.each(['bash', 'zsh', 'fish'])('%s completion, run for real', (shell) => {
  it.each(CASES)('%j offers %j', async (words, offered) => {
    const script = await scriptFor(shell);
    // fish takes the command line as one string: an empty last word is a trailing space.
    const [cmd, args] = COMPLETE[shell]!(script, words);
    const { stdout } = await run(cmd, args, { env });
    const got = stdout
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => l.split('\t')[0]);
    expect(got.sort()).toEqual([...offered].sort());
  });
});

describe('powershell completion', () => {
  it('is this script for a small command tree (pinned: PowerShell is not on this machine)', () => {
    const tree = {
      topLevel: ['--version', '-V', '--json', '--help'],
      global: ['--json'],
      globalWithValue: ['--config', '-c'],
      verbs: [
        { name: 'send', options: ['--file', '--help'], verbs: [], takesAgent: true },
        { name: 'token', options: ['--help'], verbs: ['rotate'], takesAgent: false },
      ],
    };
    expect(completionScript('powershell', tree)).toBe(POWERSHELL);
  });
});

const POWERSHELL = `# contactor completion for PowerShell: add \`contactor completion powershell | Out-String | Invoke-Expression\` to $PROFILE
Register-ArgumentCompleter -Native -CommandName contactor, contactor.exe -ScriptBlock {
    param($wordToComplete, $commandAst, $cursorPosition)
    $before = @($commandAst.CommandElements | Where-Object { $_.Extent.EndOffset -lt $cursorPosition } | ForEach-Object { $_.ToString() })
    $verb = $null
    $n = 0
    $skip = $false
    foreach ($w in ($before | Select-Object -Skip 1)) {
        if ($skip) { $skip = $false }
        elseif ($w -in @('--config', '-c')) { $skip = $true }
        elseif ($w -like '-*') { }
        elseif (-not $verb) { $verb = $w }
        else { $n++ }
    }
    $candidates = @()
    if ($wordToComplete -like '-*') {
        $candidates = @('--version', '-V', '--json', '--help')
        if ($verb -eq 'send') { $candidates = @('--file', '--help', '--json') }
        if ($verb -eq 'token') { $candidates = @('--help', '--json') }
    }
    elseif (-not $verb) { $candidates = @('send', 'token') }
    elseif ($n -eq 0) {
        if ($verb -eq 'token') { $candidates = @('rotate') }
        if ($verb -in @('send')) { $candidates = @(contactor __complete-agents 2>$null) }
    }
    $candidates | Where-Object { $_ -like "$wordToComplete*" } | ForEach-Object {
        [System.Management.Automation.CompletionResult]::new($_, $_, 'ParameterValue', $_)
    }
}
`;
