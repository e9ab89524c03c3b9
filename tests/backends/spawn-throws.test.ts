/**
 * The process queries and probes that promise never to throw keep that promise when Node's `spawn` throws instead of
 * emitting 'error'. Node's `ChildProcess.prototype.spawn` (lib/internal/child_process.js) checks what
 * `this._handle.spawn()` (libuv's `uv_spawn`) returned: ENOENT, EACCES, EAGAIN, EMFILE and ENFILE go to
 * 'error' on the next tick (`onErrorNT`); any other failure closes the stdio pipes and is thrown from the call
 * as `errnoException(err, 'spawn')`. On Windows, `uv_spawn` (src/win/process.c) returns a CreateProcessW
 * failure through `uv_translate_sys_error` (src/win/error.c), whose default case is UNKNOWN: the Windows lane
 * saw that throw reach the bridge as an unhandled rejection from the start-time query of a CLI agent's
 * receipt, which ends a Node process. Here the same throw comes from the kernel: a program name past NAME_MAX
 * (ENAMETOOLONG) or one argument past MAX_ARG_STRLEN (E2BIG).
 */
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { processStartOf, windowsProcessStarts } from '../../main/backends/process/process-start.js';
import { runTaskkill } from '../../main/backends/process/process-tree.js';
import { newBridgeRun } from '../../main/backends/process/spawn-marks.js';
import { stopWslOrphans } from '../../main/backends/process/wsl-orphans.js';
import { runCommand } from '../../main/cli/command-runner.js';

const TOO_LONG_NAME = 'x'.repeat(5000);
const TOO_LONG_ARGUMENT = 'd'.repeat(200_000);

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0).reverse()) cleanup();
});

describe.skipIf(process.platform !== 'linux')('a spawn that Node throws', () => {
  it('leaves the Windows start-time query unanswered, not rejected', async () => {
    await expect(windowsProcessStarts([4242], { powershell: TOO_LONG_NAME })).resolves.toEqual(new Map());
    await expect(processStartOf(4242, { platform: 'win32', powershell: TOO_LONG_NAME })).resolves.toBeUndefined();
  });

  it('is a failed taskkill with the reason, not a throw', async () => {
    const result = await runTaskkill({ program: TOO_LONG_NAME, args: [] }, 5_000);
    expect(result.code).toBeNull();
    expect(result.failure).toMatch(/ENAMETOOLONG/);
  });

  it('leaves the WSL orphan sweep finished, not rejected', async () => {
    // A stand-in for wsl.exe that only has to exist (a missing program is ENOENT, which Node emits): the
    // kernel's execve refuses the argument (E2BIG) before the program would run, so nothing of wsl.exe's own
    // behaviour is modelled or reached.
    const bin = mkdtempSync(path.join(tmpdir(), 'contactor-fake-wsl-'));
    writeFileSync(path.join(bin, 'wsl.exe'), '#!/bin/sh\nexit 0\n');
    chmodSync(path.join(bin, 'wsl.exe'), 0o755);
    const oldPath = process.env.PATH;
    process.env.PATH = `${bin}${path.delimiter}${oldPath ?? ''}`;
    cleanups.push(
      () => rmSync(bin, { recursive: true, force: true }),
      () => (process.env.PATH = oldPath),
    );
    const run = newBridgeRun('/data/a');
    await expect(stopWslOrphans([TOO_LONG_ARGUMENT, 'Ubuntu'], run, 5_000)).resolves.toBeUndefined();
  });

  it("is a CLI probe's failed result with the error, not a rejection", async () => {
    const result = await runCommand(TOO_LONG_NAME, []);
    expect(result.code).toBeNull();
    expect(result.error?.code).toBe('ENAMETOOLONG');
  });
});
