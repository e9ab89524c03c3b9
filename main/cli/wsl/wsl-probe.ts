/**
 * Which WSL distros exist, asked of `wsl.exe -l -q` (on Windows, or inside WSL through interop). wsl.exe
 * prints UTF-16LE unless WSL_UTF8=1 is set (microsoft/WSL#4607), and a default distro may be listed with
 * a BOM; the decoder accepts both encodings.
 */
import { describeFailure, type CommandRunner } from '../command-runner.js';

export type DistroList =
  { kind: 'absent' } | { kind: 'listed'; distros: string[] } | { kind: 'failed'; reason: string };

/** UTF-16LE when the bytes look like it (a BOM, or NULs in the high bytes of ASCII), else UTF-8. */
export function decodeWslOutput(bytes: Buffer): string {
  const bom16 = bytes.length >= 2 && bytes[0] === 0xff && bytes[1] === 0xfe;
  let zeros = 0;
  for (let i = 1; i < bytes.length; i += 2) if (bytes[i] === 0) zeros += 1;
  const utf16 = bom16 || (bytes.length >= 2 && zeros >= bytes.length / 4);
  const text = utf16 ? bytes.toString('utf16le') : bytes.toString('utf8');
  return text.replace(/^\uFEFF/, '').replace(/\0/g, '');
}

export async function listWslDistros(run: CommandRunner, env: NodeJS.ProcessEnv): Promise<DistroList> {
  const result = await run('wsl.exe', ['-l', '-q'], { env, timeoutMs: 15_000 });
  if (result.error?.code === 'ENOENT') return { kind: 'absent' };
  const text = decodeWslOutput(result.stdout);
  if (result.error || result.code !== 0) {
    return {
      kind: 'failed',
      reason: describeFailure('wsl.exe -l -q', result, `${text}\n${decodeWslOutput(result.stderr)}`),
    };
  }
  const distros = text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter(Boolean);
  return { kind: 'listed', distros };
}

/** The listed name for `distro` (wsl.exe matches distro names without regard to case), if any. */
export function findDistro(distros: readonly string[], distro: string): string | undefined {
  return distros.find((d) => d.toLowerCase() === distro.toLowerCase());
}
