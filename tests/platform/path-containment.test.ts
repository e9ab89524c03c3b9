/**
 * The one table for "does this path lie inside that folder?" (main/platform/path-containment.ts), asked by
 * the cwd confinement, the ACP workspace and the one-click toast check alike. Windows rows run on every
 * host: the helper picks the rules from the path's shape, not from the machine.
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { isAbsolutePath, pathContains, realPathOf } from '../../main/platform/path-containment.js';

/** [root, target, inside?, why] */
const TABLE: [string, string, boolean, string][] = [
  // POSIX
  ['/home/me/work', '/home/me/work', true, 'the root itself'],
  ['/home/me/work', '/home/me/work/src/a.ts', true, 'below'],
  ['/home/me/work/', '/home/me/work/src', true, 'a trailing separator on the root'],
  ['/home/me/work', '/home/me/workshop', false, 'a sibling sharing the prefix'],
  ['/home/me/work', '/home/me', false, 'the parent'],
  ['/home/me/work', '/home/me/work/../.ssh', false, '`..` written inside the path'],
  ['/home/me/work', '/home/me/work/..foo', true, 'a name that starts with two dots'],
  ['/home/me/work', '/home/me/work/..', false, '`..` alone'],
  ['/home/me/work', '/home/me/Work/x', false, 'POSIX is case-sensitive'],
  ['/', '/etc/passwd', true, 'everything is below /'],
  ['/home/me/work', 'work/x', false, 'a relative target is never inside'],
  ['work', 'work/x', false, 'nor is anything inside a relative root'],
  // Windows: drive letters, case, separators
  ['C:\\Users\\me\\work', 'C:\\Users\\me\\work\\src', true, 'below, on a drive'],
  ['C:\\Users\\me\\work', 'c:\\users\\ME\\WORK\\src', true, 'Windows compares case-insensitively'],
  ['C:\\Users\\me\\work', 'C:/Users/me/work/src', true, 'forward slashes are separators too'],
  ['C:/Users/me/work', 'C:\\Users\\me\\work', true, 'either separator in the root'],
  ['C:\\Users\\me\\work', 'D:\\Users\\me\\work', false, 'another drive'],
  ['C:\\Users\\me\\work', 'C:\\Users\\me\\workshop', false, 'a sibling sharing the prefix'],
  ['C:\\Users\\me\\work', 'C:\\Users\\me\\work\\..foo', true, 'a name that starts with two dots'],
  ['C:\\Users\\me\\work', 'C:\\Users\\me\\work\\..\\AppData', false, '`..` written inside the path'],
  ['C:\\', 'C:\\Windows', true, 'below a drive root'],
  // Windows: UNC shares
  ['\\\\server\\share', '\\\\server\\share\\dir\\f.txt', true, 'below a share'],
  ['\\\\server\\share', '\\\\SERVER\\Share\\dir', true, 'a share, case-insensitively'],
  ['\\\\server\\share', '\\\\server\\share2\\dir', false, 'another share of the server'],
  ['\\\\server\\share', '\\\\other\\share\\dir', false, 'the same share name on another server'],
  ['\\\\wsl.localhost\\Ubuntu\\home', '\\\\wsl.localhost\\Debian\\home', false, 'another WSL distro'],
  // Styles never mix
  ['C:\\Users\\me', '/mnt/c/Users/me/x', false, 'a Linux path is not inside a Windows one'],
  ['/mnt/c/Users/me', 'C:\\Users\\me\\x', false, 'nor the other way round'],
];

describe('pathContains(root, target)', () => {
  it.each(TABLE)('%s ⊇ %s is %s (%s)', (root, target, inside) => {
    expect(pathContains(root, target)).toBe(inside);
  });

  it('knows absolute paths of both styles', () => {
    expect(['/x', 'C:\\x', 'C:/x', '\\\\s\\share'].map(isAbsolutePath)).toEqual([true, true, true, true]);
    expect(['x', '.\\x', 'C:x'].map(isAbsolutePath)).toEqual([false, false, false]);
  });
});

describe.skipIf(process.platform === 'win32')('through symlinks: compare real paths', () => {
  const dir = realpathSync(mkdtempSync(path.join(tmpdir(), 'contactor-paths-')));
  const root = path.join(dir, 'work');
  const outside = path.join(dir, 'secret');
  mkdirSync(root);
  mkdirSync(outside);
  symlinkSync(outside, path.join(root, 'link'));
  symlinkSync(root, path.join(dir, 'work-link'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('a link inside the root that leads out is inside by name, outside by real path', () => {
    const target = path.join(root, 'link', 'id_rsa');
    expect(pathContains(root, target)).toBe(true);
    expect(realPathOf(target)).toBe(path.join(outside, 'id_rsa'));
    expect(pathContains(realPathOf(root), realPathOf(target))).toBe(false);
  });

  it('a root reached through a link holds what lies below its target, files not yet created too', () => {
    const target = path.join(dir, 'work-link', 'new', 'file.txt');
    expect(pathContains(root, target)).toBe(false);
    expect(pathContains(realPathOf(path.join(dir, 'work-link')), realPathOf(target))).toBe(true);
  });
});
