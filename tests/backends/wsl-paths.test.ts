import { describe, expect, it } from 'vitest';
import { windowsToWsl, wslToWindows } from '../../main/backends/process/wsl-paths.js';

describe('windowsToWsl', () => {
  it.each([
    ['C:\\Users\\x\\p', '/mnt/c/Users/x/p'],
    ['c:\\Users\\x\\p\\', '/mnt/c/Users/x/p'],
    ['D:/work/repo', '/mnt/d/work/repo'],
    ['C:\\', '/mnt/c'],
    ['C:', '/mnt/c'],
    ['C:\\Users\\Zoë Müller\\项目 dir', '/mnt/c/Users/Zoë Müller/项目 dir'],
    ['C:\\a\\\\b\\.\\c', '/mnt/c/a/b/c'],
    ['\\\\?\\C:\\very\\long', '/mnt/c/very/long'],
    ['\\\\wsl.localhost\\Ubuntu\\home\\x', '/home/x'],
    ['\\\\wsl.localhost\\ubuntu\\home\\x\\', '/home/x'],
    ['\\\\wsl$\\Ubuntu\\home\\x\\p', '/home/x/p'],
    ['//wsl.localhost/Ubuntu/home/x', '/home/x'],
    ['\\\\wsl.localhost\\Ubuntu', '/'],
  ])('%s → %s', (input, expected) => {
    expect(windowsToWsl(input, 'Ubuntu')).toBe(expected);
  });

  it('honours a custom automount root', () => {
    expect(windowsToWsl('C:\\x', 'Ubuntu', { automountRoot: '/' })).toBe('/c/x');
    expect(windowsToWsl('C:\\x', 'Ubuntu', { automountRoot: '/win' })).toBe('/win/c/x');
  });

  it('refuses a path inside another distro', () => {
    expect(() => windowsToWsl('\\\\wsl.localhost\\Debian\\home\\x', 'Ubuntu')).toThrow(/inside WSL distro "Debian"/);
  });

  it.each(['relative\\p', '\\\\server\\share\\p', '/home/x', ''])('refuses %j', (input) => {
    expect(() => windowsToWsl(input, 'Ubuntu')).toThrow(/not an absolute Windows/);
  });
});

describe('wslToWindows', () => {
  it.each([
    ['/mnt/c/Users/x/p', 'C:\\Users\\x\\p'],
    ['/mnt/c', 'C:\\'],
    ['/mnt/c/', 'C:\\'],
    ['/mnt/d/项目 dir/a b', 'D:\\项目 dir\\a b'],
    ['/home/x', '\\\\wsl.localhost\\Ubuntu\\home\\x'],
    ['/home//x/./p/', '\\\\wsl.localhost\\Ubuntu\\home\\x\\p'],
    ['/', '\\\\wsl.localhost\\Ubuntu\\'],
    ['/mnt/wsl/shared', '\\\\wsl.localhost\\Ubuntu\\mnt\\wsl\\shared'],
    ['/mnt', '\\\\wsl.localhost\\Ubuntu\\mnt'],
  ])('%s → %s', (input, expected) => {
    expect(wslToWindows(input, 'Ubuntu')).toBe(expected);
  });

  it('honours a custom automount root', () => {
    expect(wslToWindows('/c/x', 'Ubuntu', { automountRoot: '/' })).toBe('C:\\x');
    expect(wslToWindows('/mnt/c/x', 'Ubuntu', { automountRoot: '/' })).toBe('\\\\wsl.localhost\\Ubuntu\\mnt\\c\\x');
  });

  it('needs a distro for paths outside the drive mounts', () => {
    expect(() => wslToWindows('/home/x', undefined)).toThrow(/set the agent's "distro"/);
    expect(wslToWindows('/mnt/c/x', undefined)).toBe('C:\\x');
  });

  it('refuses relative paths', () => {
    expect(() => wslToWindows('home/x', 'Ubuntu')).toThrow(/not an absolute Linux path/);
  });

  it('round-trips drive and distro paths', () => {
    for (const p of ['C:\\Users\\x\\p', '\\\\wsl.localhost\\Ubuntu\\home\\x\\p q']) {
      expect(wslToWindows(windowsToWsl(p, 'Ubuntu'), 'Ubuntu')).toBe(p);
    }
  });
});
