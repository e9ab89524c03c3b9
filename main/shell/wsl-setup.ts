/**
 * "Copy WSL CLI setup": the commands that link the WSL wrapper shipped in `<install>/resources/cli/contactor`
 * into ~/.local/bin. The wrapper finds the install through that symlink (realpath), as VS Code's code.sh does.
 * `ln -sf` so running it again (after a reinstall) just works; ~/.local/bin is put on PATH for the shell it is
 * pasted into too (Ubuntu's ~/.profile adds it only at the next login, and only if it existed then).
 */

/**
 * A Windows drive path as WSL's default automount shows it (`C:\Users\x` → `/mnt/c/Users/x`). Undefined for
 * paths WSL cannot reach by drive letter (UNC shares). A distro with another `[automount] root` needs
 * `wslpath -u`, which is why the copied text also names the Windows path.
 */
export function wslPathOf(windowsPath: string): string | undefined {
  const m = /^([A-Za-z]):[\\/]*(.*)$/.exec(windowsPath);
  if (!m) return undefined;
  const rest = m[2]!.split(/[\\/]+/).filter((s) => s !== '');
  return ['/mnt', m[1]!.toLowerCase(), ...rest].join('/');
}

/** The commands for the install in `installDir` (the folder holding Contactor.exe), or undefined. */
export function wslCliSetup(installDir: string): string | undefined {
  const wrapper = wslPathOf(`${installDir.replace(/[\\/]+$/, '')}\\resources\\cli\\contactor`);
  if (!wrapper) return undefined;
  return [
    `# Contactor CLI for WSL (installed in ${installDir})`,
    'mkdir -p ~/.local/bin',
    `ln -sf ${shellQuote(wrapper)} ~/.local/bin/contactor`,
    'case ":$PATH:" in *":$HOME/.local/bin:"*) ;; *) export PATH="$HOME/.local/bin:$PATH" ;; esac',
    'contactor status',
    '',
  ].join('\n');
}

/** Double quotes, with the characters that stay special inside them escaped. */
function shellQuote(text: string): string {
  return `"${text.replace(/["\\$`]/g, (c) => `\\${c}`)}"`;
}
