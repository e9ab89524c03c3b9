/**
 * The Linux side of WSL agents after a killed bridge (SECURITY.md#agent-processes). On Windows the bridge holds only
 * `wsl.exe`'s pid; the agent itself runs inside the distro, where `/proc` is not visible from Windows.
 * Its `CONTACTOR_BRIDGE_RUN` mark is forwarded through WSLENV like every CONTACTOR_* variable, so at the
 * next start the bridge runs this script inside each distro its WSL agents use: it SIGKILLs every
 * process of the user marked with an earlier run of the same data dir (spawn-marks.ts has the same rule
 * for the host). POSIX sh, so it runs in any distro; tested on Linux directly.
 */
import { spawn } from 'node:child_process';

/** `$1`: the data dir key (`<key>:` prefix), `$2`: the current run, which is spared. */
export const ORPHAN_SCRIPT = [
  'for d in /proc/[0-9]*; do',
  '  m=$(tr "\\000" "\\n" < "$d/environ" 2>/dev/null | grep "^CONTACTOR_BRIDGE_RUN=$1:") || continue',
  '  [ "${m#CONTACTOR_BRIDGE_RUN=}" = "$2" ] && continue',
  '  kill -9 "${d#/proc/}" 2>/dev/null',
  'done',
  'exit 0',
].join('\n');

export function wslOrphanCommand(distro: string | undefined, bridgeRun: string): { program: string; args: string[] } {
  const key = bridgeRun.split(':')[0]!;
  return {
    program: 'wsl.exe',
    args: [...(distro ? ['-d', distro] : []), '--', 'sh', '-c', ORPHAN_SCRIPT, 'contactor-orphans', key, bridgeRun],
  };
}

/** Runs the script in each distro (undefined: the default one), at most `timeoutMs` each, never throws. */
export async function stopWslOrphans(
  distros: readonly (string | undefined)[],
  bridgeRun: string,
  timeoutMs = 10_000,
): Promise<void> {
  await Promise.all(
    [...new Set(distros)].map(
      (distro) =>
        new Promise<void>((resolve) => {
          const { program, args } = wslOrphanCommand(distro, bridgeRun);
          let child: ReturnType<typeof spawn>;
          try {
            child = spawn(program, args, { stdio: 'ignore', windowsHide: true, shell: false });
          } catch {
            // Thrown, not emitted, for a spawn failure other than ENOENT, EACCES, EAGAIN, EMFILE and ENFILE.
            resolve();
            return;
          }
          const timer = setTimeout(() => child.kill(), timeoutMs);
          const done = (): void => {
            clearTimeout(timer);
            resolve();
          };
          child.once('exit', done);
          child.once('error', done);
        }),
    ),
  );
}
