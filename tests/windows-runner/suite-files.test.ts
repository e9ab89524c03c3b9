/**
 * The hosted Windows runner's test list (suite-files.ts) and the workflow that runs it
 * (.github/workflows/windows.yml): every listed file exists, none twice; the platform-neutral ones name nothing
 * POSIX-only; and the workflow runs that list (not `npm test`) on a pinned image, with the checks that make a
 * failure say what broke.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { PLATFORM_NEUTRAL_FILES, WINDOWS_RUNNER_FILES } from './suite-files.js';

const ROOT = path.resolve(import.meta.dirname, '..', '..');
const WORKFLOW = path.join(ROOT, '.github', 'workflows', 'windows.yml');

/** What fails on Windows by design: POSIX shells and shebang scripts, file modes, signals, symlinks, /tmp. */
const POSIX_ONLY = [
  /\/bin\//,
  /#!/,
  /\bchmod/,
  /\bSIG(TERM|KILL|INT|HUP)\b/,
  /\bsymlink/,
  /\bprocess\.kill\b/,
  /['"](ba)?sh['"]/,
  /\/tmp\b/,
  /\b0o[0-7]{3}\b/,
  /\buname\b/,
];

describe('the Windows runner’s test list', () => {
  it.each(WINDOWS_RUNNER_FILES)('%s exists', (file) => {
    expect(existsSync(path.join(ROOT, file))).toBe(true);
  });

  it('names each file once', () => {
    expect(new Set(WINDOWS_RUNNER_FILES).size).toBe(WINDOWS_RUNNER_FILES.length);
  });

  it.each(PLATFORM_NEUTRAL_FILES)('%s names nothing POSIX-only', (file) => {
    const text = readFileSync(path.join(ROOT, file), 'utf8');
    expect(POSIX_ONLY.filter((p) => p.test(text)).map(String)).toEqual([]);
  });
});

interface Step {
  name?: string;
  run?: string;
  shell?: string;
}
describe('.github/workflows/windows.yml', () => {
  const job = (parse(readFileSync(WORKFLOW, 'utf8')) as { jobs: { windows: { 'runs-on': string; steps: Step[] } } })
    .jobs.windows;
  const runs = job.steps.map((s) => s.run ?? '');
  const index = (pattern: RegExp): number => runs.findIndex((r) => pattern.test(r));

  it('runs on a pinned image and prints the compiler before building with it', () => {
    expect(job['runs-on']).toBe('windows-2025');
    expect(index(/^gcc --version$/m)).toBeGreaterThanOrEqual(0);
    expect(index(/^gcc --version$/m)).toBeLessThan(index(/^npm run build$/m));
  });

  it('runs the explicit Windows-safe list, never the whole `npm test`', () => {
    expect(runs.filter((r) => /\bnpm (run )?test\b/.test(r))).toEqual([]);
    expect(runs).toContain('npx vitest run --config tests/windows-runner/vitest.config.ts');
  });

  it('asks `status` right after `up`, in the same step', () => {
    const step = runs[index(/ up --headless /)]!;
    expect(step.indexOf(' status -c ')).toBeGreaterThan(step.indexOf(' up --headless '));
  });

  it('runs `contactor --version` from Git Bash, through the wrapper', () => {
    const step = job.steps.find((s) => s.shell === 'bash' && /contactor --version/.test(s.run ?? ''));
    expect(step?.run).toContain('[ "$(command -v contactor)" = "$cli_dir/contactor" ]');
  });

  it('packages with the certificate from the repository’s secrets, and checks each signature Windows sees', () => {
    const pack = job.steps.find((s) => /electron-builder --win nsis/.test(s.run ?? '')) as Step & {
      env?: Record<string, string>;
    };
    expect(pack.env).toEqual({
      WIN_CSC_LINK: '${{ secrets.WIN_CSC_LINK }}',
      WIN_CSC_KEY_PASSWORD: '${{ secrets.WIN_CSC_KEY_PASSWORD }}',
    });
    const check = runs[index(/Get-AuthenticodeSignature/)]!;
    for (const file of ['Contactor.exe', 'resources\\cli\\contactor.exe', '*Setup*.exe']) expect(check).toContain(file);
  });

  it('types Ctrl-C into a ConPTY after the install', () => {
    expect(index(/ctrl-c-conpty\.ts/)).toBeGreaterThan(index(/Start-Process -Wait -FilePath \$setup/));
    expect(existsSync(path.join(ROOT, 'tests/windows-runner/ctrl-c-conpty.ts'))).toBe(true);
  });
});
