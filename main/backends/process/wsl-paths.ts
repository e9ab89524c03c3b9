/**
 * Path translation between Windows and a WSL distro, as pure string functions (the bridge runs on
 * Windows and cannot call `wslpath` inside the distro for every request).
 *
 *   C:\Users\x\p                      ↔ /mnt/c/Users/x/p
 *   \\wsl.localhost\<distro>\home\x   ↔ /home/x            (\\wsl$\<distro>\... is read too)
 *
 * The drive mount root comes from the distro's /etc/wsl.conf `[automount] root` (default /mnt/); pass
 * it when a user changed it. Anything that is not an absolute path in the expected OS is refused with
 * an error that names the path, so a relative or foreign path never reaches an agent.
 */

export interface WslPathOptions {
  /** The distro's automount root, default `/mnt/`. */
  automountRoot?: string;
}

const DRIVE = /^([A-Za-z]):(?:[\\/]|$)/;
const WSL_UNC = /^[\\/]{2}(?:wsl\.localhost|wsl\$)[\\/]([^\\/]+)(?:[\\/](.*))?$/i;

function mountRoot(options: WslPathOptions): string {
  const root = options.automountRoot ?? '/mnt/';
  return root.endsWith('/') ? root : `${root}/`;
}

function segments(rest: string): string[] {
  return rest.split(/[\\/]+/).filter((s) => s !== '' && s !== '.');
}

/** Any path as a WSL agent sees it: a Linux path as it is, a Windows one (`//wsl.localhost/...` too) through `windowsToWsl`. */
export function asSeenByDistro(anyPath: string, distro: string | undefined): string {
  return anyPath.startsWith('/') && !WSL_UNC.test(anyPath) ? anyPath : windowsToWsl(anyPath, distro);
}

/** A Windows path (drive or \\wsl.localhost / \\wsl$ UNC of `distro`) as the distro sees it. */
export function windowsToWsl(windowsPath: string, distro: string | undefined, options: WslPathOptions = {}): string {
  const path = windowsPath.replace(/^\\\\\?\\(?=[A-Za-z]:)/, ''); // \\?\C:\... long-path prefix
  const drive = DRIVE.exec(path);
  if (drive) {
    const rest = segments(path.slice(2));
    return `${mountRoot(options)}${drive[1]!.toLowerCase()}${rest.length ? `/${rest.join('/')}` : ''}`;
  }
  const unc = WSL_UNC.exec(path);
  if (unc) {
    const owner = unc[1]!;
    if (distro !== undefined && owner.toLowerCase() !== distro.toLowerCase()) {
      throw new Error(
        `path ${windowsPath} is inside WSL distro "${owner}", not "${distro}"; the agent cannot reach it`,
      );
    }
    return `/${segments(unc[2] ?? '').join('/')}`;
  }
  throw new Error(`path ${windowsPath} is not an absolute Windows drive path or \\\\wsl.localhost\\ path`);
}

/** A Linux path inside `distro` as Windows sees it. Drive mounts become drive paths, the rest UNC. */
export function wslToWindows(linuxPath: string, distro: string | undefined, options: WslPathOptions = {}): string {
  if (!linuxPath.startsWith('/')) throw new Error(`path ${linuxPath} is not an absolute Linux path`);
  const root = mountRoot(options);
  const parts = segments(linuxPath);
  const rootParts = segments(root);
  const underRoot = rootParts.every((p, i) => parts[i] === p);
  const driveLetter = parts[rootParts.length];
  if (underRoot && driveLetter !== undefined && /^[a-z]$/i.test(driveLetter)) {
    return `${driveLetter.toUpperCase()}:\\${parts.slice(rootParts.length + 1).join('\\')}`;
  }
  if (distro === undefined || distro === '') {
    throw new Error(`path ${linuxPath} lives inside WSL; set the agent's "distro" so it can be reached from Windows`);
  }
  return `\\\\wsl.localhost\\${distro}\\${parts.join('\\')}`;
}
