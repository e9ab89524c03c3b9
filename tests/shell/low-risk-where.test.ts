/**
 * One-click "low risk" judges a command where it runs (SECURITY.md#one-click-answers): every path it names,
 * resolved against the folder the tool call says (`cwd`, Codex's `workdir`), must lie inside the task's
 * workspace and outside the protected folders. The rows are the requests an agent would send to get a
 * one-click Allow for reading a key: the folder moved instead of the path, `~` and `%USERPROFILE%` forms,
 * relative climbs, no folder at all, flags that read a path, and a symlink in the workspace.
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { ToolCallSummary } from '../../main/domain/pending.js';
import { isLowRisk, protectedHomeDirs } from '../../main/shell/low-risk.js';

/** The bridge's data dir and config folder (as the tray passes them) and the home's protected folders. */
const POSIX_PROTECTED = [
  '/home/x/.local/share/contactor',
  '/home/x/.config/contactor',
  ...protectedHomeDirs('/home/x'),
];
const WIN_PROTECTED = [
  'C:\\Users\\x\\AppData\\Local\\contactor',
  'C:\\Users\\x\\AppData\\Roaming\\contactor',
  ...protectedHomeDirs('C:\\Users\\x'),
];

type Row = [command: string | string[], where: Record<string, unknown>, workspace: string, lowRisk: boolean];

const POSIX_ROWS: Row[] = [
  // The folder moves, the command stays harmless-looking.
  ['cat id_rsa', { cwd: '~/.ssh' }, '/home/x/app', false],
  ['cat id_rsa', { cwd: '/home/x/.ssh' }, '/home/x/app', false],
  ['cat id_rsa', { cwd: '/home/x/.ssh' }, '/home/x', false],
  ['cat token', { cwd: '/home/x/.local/share/contactor' }, '/home/x/app', false],
  ['cat token', { cwd: '/home/x/.local/share/contactor' }, '/home/x', false],
  ['cat config.yaml', { cwd: '/home/x/.config/contactor' }, '/home/x', false],
  [['cat', 'config'], { workdir: '~/.aws' }, '/home/x/app', false],
  [['cat', 'config'], { workdir: '/home/x/.aws' }, '/home/x', false],
  ['cat hosts.yml', { cwd: '/home/x/.config/gh' }, '/home/x', false],
  ['ls', { cwd: '/home/x/.gnupg' }, '/home/x', false],
  ['cat Cookies', { cwd: '/home/x/.config/google-chrome/Default' }, '/home/x', false],
  ['ls', { cwd: '/home/x/.mozilla/firefox' }, '/home/x', false],
  ['cat Login Data', { cwd: '/home/x/Library/Application Support/Google/Chrome/Default' }, '/home/x', false],
  ['cat .netrc', { cwd: '/home/x' }, '/home/x', false],
  // Inside the workspace, wherever in it the command runs.
  ['cat README.md', { cwd: '/home/x/app' }, '/home/x/app', true],
  [['cat', 'README.md'], { workdir: '/home/x/app' }, '/home/x/app', true],
  ['cat a.ts', { cwd: '/home/x/app/src' }, '/home/x/app', true],
  ['ls', { cwd: '/home/x/app/src' }, '/home/x/app', true],
  ['cat notes.txt', { cwd: '/home/x' }, '/home/x', true],
  ['cat /home/x/app/a.ts', { cwd: '/tmp' }, '/home/x/app', true],
  // Relative paths that climb out (or only seem to).
  ['cat ../../.ssh/id_rsa', { cwd: '/home/x/app/src' }, '/home/x/app', false],
  ['cat ../README.md', { cwd: '/home/x/app/src' }, '/home/x/app', true],
  ['ls ..', { cwd: '/home/x/app' }, '/home/x/app', false],
  ['ls', { cwd: '/home/x' }, '/home/x/app', false],
  ['cat a.ts', { cwd: '/home/x/app/../other' }, '/home/x/app', false],
  ['cat .ssh/id_rsa', { cwd: '/home/x/app' }, '/home/x/app', false],
  // No folder given: only what reads no path, or an absolute path inside, is proven.
  ['cat README.md', {}, '/home/x/app', false],
  ['ls', {}, '/home/x/app', false],
  ['cat /home/x/app/README.md', {}, '/home/x/app', true],
  ['cat /home/x/.ssh/id_rsa', {}, '/home/x/app', false],
  ['pwd', {}, '/home/x/app', true],
  ['whoami', {}, '/home/x/app', true],
  // A folder that cannot be known here: relative, `~` forms, variables, disagreeing keys, not a string.
  ['cat README.md', { cwd: 'app' }, '/home/x/app', false],
  ['cat README.md', { cwd: '.' }, '/home/x/app', false],
  ['cat README.md', { cwd: '~' }, '/home/x', false],
  ['cat README.md', { cwd: '~x/app' }, '/home/x/app', false],
  ['cat README.md', { cwd: '$HOME/app' }, '/home/x/app', false],
  ['cat README.md', { cwd: '/home/x/app', workdir: '/home/x/.ssh' }, '/home/x/app', false],
  ['cat README.md', { cwd: 42 }, '/home/x/app', false],
  ['cat README.md', { cwd: ['/home/x/app'] }, '/home/x/app', false],
  ['pwd', { cwd: '~/.ssh' }, '/home/x/app', false],
  // Flags that take a path are never listed, so never one-click; listed value flags take no path.
  ['grep -f /home/x/.ssh/id_rsa README.md', { cwd: '/home/x/app' }, '/home/x/app', false],
  ['grep --file=pats.txt README.md', { cwd: '/home/x/app' }, '/home/x/app', false],
  ['grep --exclude-from=/home/x/.ssh/config -r x', { cwd: '/home/x/app' }, '/home/x/app', false],
  ['rg --ignore-file=/home/x/.ssh/config x', { cwd: '/home/x/app' }, '/home/x/app', false],
  ['wc --files0-from=list', { cwd: '/home/x/app' }, '/home/x/app', false],
  ['du -X /home/x/.ssh/id_rsa .', { cwd: '/home/x/app' }, '/home/x/app', false],
  ['file -m /home/x/.ssh/id_rsa a', { cwd: '/home/x/app' }, '/home/x/app', false],
  ['grep -e ssh /home/x/.ssh/config', { cwd: '/home/x/app' }, '/home/x/app', false],
  ['grep -e ssh README.md', { cwd: '/home/x/app' }, '/home/x/app', true],
  ['head -n 5 README.md', { cwd: '/home/x/app' }, '/home/x/app', true],
  // A Windows folder for a POSIX workspace is never inside it.
  ['cat README.md', { cwd: 'C:\\home\\x\\app' }, '/home/x/app', false],
  // grep's --color takes a value only as --color=WHEN: `--color x` leaves x as the pattern, the key a path.
  ['grep --color x /home/x/.ssh/id_rsa', { cwd: '/home/x/app' }, '/home/x/app', false],
  ['grep --colour x /home/x/.ssh/id_rsa', { cwd: '/home/x/app' }, '/home/x/app', false],
  ['grep --color=never x README.md', { cwd: '/home/x/app' }, '/home/x/app', true],
  ['grep --color x README.md', { cwd: '/home/x/app' }, '/home/x/app', true],
  // `-d recurse` is -r under another name: a recursive read of a home that holds .ssh.
  ['grep -d recurse PRIVATE .', { cwd: '/home/x' }, '/home/x', false],
  ['grep -drecurse PRIVATE .', { cwd: '/home/x' }, '/home/x', false],
  // A credential folder's name in another case: one folder on macOS and on a Windows drive seen from WSL.
  ['cat .SSH/id_rsa', { cwd: '/mnt/c/Users/x' }, '/mnt/c/Users/x', false],
  ['cat .Aws/credentials', { cwd: '/Users/x' }, '/Users/x', false],
  // An environment of its own: LD_PRELOAD runs a library inside cat, RIPGREP_CONFIG_PATH gives rg a --pre.
  ['cat README.md', { cwd: '/home/x/app', env: { LD_PRELOAD: '/tmp/evil.so' } }, '/home/x/app', false],
  ['rg x', { cwd: '/home/x/app', environment: { RIPGREP_CONFIG_PATH: '/tmp/rc' } }, '/home/x/app', false],
  ['cat README.md', { cwd: '/home/x/app', envVars: ['LD_PRELOAD=/tmp/evil.so'] }, '/home/x/app', false],
  ['cat README.md', { cwd: '/home/x/app', env: {} }, '/home/x/app', true],
];

const WINDOWS_ROWS: Row[] = [
  ['cat id_rsa', { cwd: 'C:\\Users\\x\\.ssh' }, 'C:\\Users\\x\\app', false],
  ['cat id_rsa', { cwd: 'C:\\Users\\x\\.ssh' }, 'C:\\Users\\x', false],
  ['cat id_rsa', { cwd: 'c:/users/X/.SSH' }, 'C:\\Users\\x', false],
  ['cat id_rsa', { cwd: '%USERPROFILE%\\.ssh' }, 'C:\\Users\\x', false],
  ['cat README.md', { cwd: '%USERPROFILE%\\app' }, 'C:\\Users\\x\\app', false],
  ['cat token', { cwd: 'C:\\Users\\x\\AppData\\Local\\contactor' }, 'C:\\Users\\x', false],
  ['cat config.yaml', { cwd: 'C:\\Users\\x\\AppData\\Roaming\\contactor' }, 'C:\\Users\\x', false],
  [['cat', 'credentials'], { workdir: 'C:\\Users\\x\\.aws' }, 'C:\\Users\\x', false],
  ['cat hosts.yml', { cwd: 'C:\\Users\\x\\AppData\\Roaming\\GitHub CLI' }, 'C:\\Users\\x', false],
  ['ls', { cwd: 'C:\\Users\\x\\AppData\\Local\\Google\\Chrome\\User Data\\Default' }, 'C:\\Users\\x', false],
  ['ls', { cwd: 'C:\\Users\\x\\AppData\\Roaming\\Mozilla\\Firefox\\Profiles' }, 'C:\\Users\\x', false],
  ['cat README.md', { cwd: 'C:\\Users\\x\\app' }, 'C:\\Users\\x\\app', true],
  ['cat a.ts', { cwd: 'c:/users/x/APP/src' }, 'C:\\Users\\x\\app', true],
  ['cat ../../.ssh/id_rsa', { cwd: 'C:\\Users\\x\\app\\src' }, 'C:\\Users\\x\\app', false],
  ['cat ../README.md', { cwd: 'C:\\Users\\x\\app\\src' }, 'C:\\Users\\x\\app', true],
  ['cat README.md', { cwd: 'D:\\app' }, 'C:\\Users\\x\\app', false],
  ['cat README.md', { cwd: '\\\\server\\share\\app' }, 'C:\\Users\\x\\app', false],
  ['cat README.md', { cwd: '/home/x/app' }, 'C:\\Users\\x\\app', false],
  ['cat C:/Users/x/app/a.ts', {}, 'C:\\Users\\x\\app', true],
  ['cat a.ts', {}, 'C:\\Users\\x\\app', false],
  // Windows drops a name's trailing dots when it opens it: `.ssh.` is .ssh, `contactor.` the data dir.
  ['cat C:/Users/x/.ssh./id_rsa', { cwd: 'C:\\Users\\x' }, 'C:\\Users\\x', false],
  ['cat token', { cwd: 'C:\\Users\\x\\AppData\\Local\\contactor.' }, 'C:\\Users\\x', false],
  ['cat ../secret.txt', { cwd: 'C:\\Users\\x\\app\\...' }, 'C:\\Users\\x\\app', false],
];

/** A WSL agent's POSIX paths against the protected folders the tray on the Windows host passes. */
const WSL_ROWS: Row[] = [
  ['cat token', { cwd: '/mnt/c/Users/x/AppData/Local/contactor' }, '/mnt/c/Users/x', false],
  ['cat config.yaml', { cwd: '/mnt/c/Users/x/AppData/Roaming/contactor' }, '/mnt/c/Users/x', false],
  ['cat token', { cwd: '/mnt/c/users/X/appdata/local/Contactor' }, '/mnt/c/users/X', false],
  ['ls', { cwd: '/mnt/c/Users/x/AppData/Local/Google/Chrome/User Data/Default' }, '/mnt/c/Users/x', false],
  ['du -s .', { cwd: '/mnt/c/Users/x' }, '/mnt/c/Users/x', false],
  ['cat README.md', { cwd: '/mnt/c/Users/x/app' }, '/mnt/c/Users/x/app', true],
  ['cat README.md', { cwd: '/home/x/app' }, '/home/x/app', true],
];

describe('isLowRisk judges a command where it runs', () => {
  const toolCall = (command: string | string[], where: Record<string, unknown>): ToolCallSummary => ({
    title: 'Run',
    kind: 'execute',
    rawInput: { command, ...where },
  });

  it.each(POSIX_ROWS)('POSIX: %j in %j, workspace %s → %s', (command, where, workspace, expected) => {
    expect(isLowRisk(toolCall(command, where), { workspace, protectedDirs: POSIX_PROTECTED })).toBe(expected);
  });

  it.each(WINDOWS_ROWS)('Windows: %j in %j, workspace %s → %s', (command, where, workspace, expected) => {
    expect(isLowRisk(toolCall(command, where), { workspace, protectedDirs: WIN_PROTECTED })).toBe(expected);
  });

  it.each(WSL_ROWS)('WSL agent, Windows host: %j in %j, workspace %s → %s', (command, where, workspace, expected) => {
    expect(isLowRisk(toolCall(command, where), { workspace, protectedDirs: WIN_PROTECTED })).toBe(expected);
  });
});

describe('a symlink in the workspace that leads out', () => {
  const root = mkdtempSync(path.join(tmpdir(), 'contactor-low-risk-'));
  const home = path.join(root, 'home');
  const workspace = path.join(home, 'app');
  mkdirSync(path.join(home, '.ssh'), { recursive: true });
  mkdirSync(workspace);
  writeFileSync(path.join(home, '.ssh', 'id_rsa'), 'key');
  writeFileSync(path.join(workspace, 'notes.txt'), 'notes');
  symlinkSync(path.join(home, '.ssh'), path.join(workspace, 'keys'));
  symlinkSync(path.join(home, '.ssh', 'id_rsa'), path.join(workspace, 'notes-link.txt'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  const context = { workspace, protectedDirs: protectedHomeDirs(home) };
  const run = (command: string, cwd: string): ToolCallSummary => ({
    title: command,
    kind: 'execute',
    rawInput: { command, cwd },
  });

  it.each([
    ['cat notes.txt', '.', true],
    ['cat keys/id_rsa', '.', false],
    ['cat notes-link.txt', '.', false],
    ['cat id_rsa', 'keys', false],
    ['ls', 'keys', false],
    // Recursive reads that follow the links they meet inside the workspace: out to .ssh.
    ['grep -R PRIVATE .', '.', false],
    ['grep --dereference-recursive PRIVATE .', '.', false],
    ['du -aL .', '.', false],
    ['grep -r PRIVATE .', '.', true],
  ] as const)('%s in <workspace>/%s → %s', (command, cwd, expected) => {
    expect(isLowRisk(run(command, path.join(workspace, cwd)), context)).toBe(expected);
  });
});
