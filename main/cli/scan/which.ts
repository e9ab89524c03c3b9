/** Where a program would be found: a path as given, or the first match on PATH (with PATHEXT on Windows). */
import { accessSync, constants, statSync } from 'node:fs';
import path from 'node:path';

export function resolveProgram(
  program: string,
  env: NodeJS.ProcessEnv,
  platform: NodeJS.Platform = process.platform,
): string | undefined {
  const exts = platform === 'win32' ? ['', ...(env.PATHEXT ?? '.COM;.EXE;.BAT;.CMD').split(';').filter(Boolean)] : [''];
  if (program.includes('/') || (platform === 'win32' && program.includes('\\'))) {
    return exts.map((e) => program + e).find(isExecutable);
  }
  const dirs = (env.PATH ?? env.Path ?? '').split(platform === 'win32' ? ';' : path.delimiter).filter(Boolean);
  for (const dir of dirs) {
    for (const ext of exts) {
      const candidate = path.join(dir, program + ext);
      if (isExecutable(candidate)) return candidate;
    }
  }
  return undefined;
}

function isExecutable(file: string): boolean {
  try {
    if (!statSync(file).isFile()) return false;
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
