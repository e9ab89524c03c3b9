/**
 * `scan` from Windows, looking inside each WSL distro: one `wsl.exe -d <distro> --exec sh -lc ...` per distro
 * asks `command -v` for every known program at once (a distro's first start takes seconds, so not once per
 * program). `-l` loads the login profile, where npm-global and ~/.local/bin agents are put on PATH.
 */
import { describeFailure, type CommandRunner } from '../command-runner.js';
import { listWslDistros } from './wsl-probe.js';

export interface DistroSighting {
  program: string;
  distro: string;
  /** The Linux path `command -v` printed. */
  path: string;
}

export interface WslScanInput {
  run: CommandRunner;
  env: NodeJS.ProcessEnv;
  programs: readonly string[];
}

export type WslScan = { available: false } | { available: true; found: DistroSighting[]; notes: string[] };

/** `sh -c <script> sh <programs...>`: the names arrive as "$@", never inside the script text. */
const LOOKUP = 'for p in "$@"; do command -v "$p" 2>/dev/null; done; exit 0';
const DISTRO_TIMEOUT_MS = 30_000;

export async function scanWslDistros(input: WslScanInput): Promise<WslScan> {
  const env = { ...input.env, WSL_UTF8: '1' };
  const listed = await listWslDistros(input.run, env);
  if (listed.kind === 'absent') return { available: false };
  if (listed.kind === 'failed') return { available: true, found: [], notes: [listed.reason] };
  const notes: string[] = [];
  const perDistro = await Promise.all(
    listed.distros.map(async (distro) => {
      const result = await input.run(
        'wsl.exe',
        ['-d', distro, '--exec', 'sh', '-lc', LOOKUP, 'sh', ...input.programs],
        { env, timeoutMs: DISTRO_TIMEOUT_MS },
      );
      const out = result.stdout.toString('utf8');
      if (result.error || result.code !== 0) {
        notes.push(
          `could not look in ${distro}: ${describeFailure('wsl.exe', result, result.stderr.toString('utf8'))}`,
        );
        return [];
      }
      return sightingsIn(distro, out, input.programs);
    }),
  );
  return { available: true, found: perDistro.flat(), notes };
}

/** Absolute paths only: `command -v` prints a bare name for shell functions and builtins, which wsl --exec cannot run. */
export function sightingsIn(distro: string, output: string, programs: readonly string[]): DistroSighting[] {
  const seen = new Set<string>();
  return output
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l.startsWith('/'))
    .flatMap((line) => {
      const program = line.slice(line.lastIndexOf('/') + 1);
      if (!programs.includes(program) || seen.has(program)) return [];
      seen.add(program);
      return [{ program, distro, path: line }];
    });
}
