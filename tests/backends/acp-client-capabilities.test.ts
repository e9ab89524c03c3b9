import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { sliceLines } from '../../main/backends/acp/client-capabilities.js';
import { Harness, makeTurn, RecordingReporter } from '../fixtures/acp/harness.js';

const h = new Harness();
afterEach(() => h.cleanup());

async function say(backend: ReturnType<Harness['backend']>, text: string): Promise<string> {
  const report = new RecordingReporter();
  const outcome = await backend.run(makeTurn(text), report);
  expect(outcome).toEqual({ kind: 'completed' });
  return report.output;
}

describe('ACP client capabilities', () => {
  it('advertises exactly what the config enables', async () => {
    expect(JSON.parse(await say(h.backend(), 'caps'))).toMatchObject({
      fs: { readTextFile: true, writeTextFile: true },
      terminal: true,
    });
    const narrow = h.backend([], { fs_write: false, terminal: false });
    expect(JSON.parse(await say(narrow, 'caps'))).toMatchObject({
      fs: { readTextFile: true, writeTextFile: false },
      terminal: false,
    });
  });

  it('reads a file inside the workspace and refuses one outside', async () => {
    const workspace = h.tempDir();
    writeFileSync(path.join(workspace, 'inside.txt'), 'hello from inside');
    const outsideDir = h.tempDir();
    writeFileSync(path.join(outsideDir, 'secret.txt'), 'secret');
    const backend = h.backend([], { cwd: workspace });

    expect(await say(backend, `fs-read ${workspace}/inside.txt`)).toBe('content=hello from inside');
    expect(await say(backend, `fs-read ${outsideDir}/secret.txt`)).toMatch(
      /^error=-32602 .*refused .*secret\.txt: it resolves outside the workspace/,
    );
    expect(await say(backend, `fs-read ${workspace}/../${path.basename(outsideDir)}/secret.txt`)).toMatch(
      /outside the workspace/,
    );
    expect(await say(backend, 'fs-read relative.txt')).toMatch(/not an absolute path/);
    expect(await say(backend, `fs-read ${workspace}/missing.txt`)).toMatch(/^error=-32002/);
  });

  it('refuses a symlink inside the workspace that points outside', async () => {
    const workspace = h.tempDir();
    const outsideDir = h.tempDir();
    writeFileSync(path.join(outsideDir, 'secret.txt'), 'secret');
    symlinkSync(outsideDir, path.join(workspace, 'link'));
    const backend = h.backend([], { cwd: workspace });
    expect(await say(backend, `fs-read ${workspace}/link/secret.txt`)).toMatch(/outside the workspace/);
    expect(await say(backend, `fs-write ${workspace}/link/new.txt pwned`)).toMatch(/outside the workspace/);
  });

  it('writes inside the workspace, creating directories, and refuses outside', async () => {
    const workspace = h.tempDir();
    const outsideDir = h.tempDir();
    const backend = h.backend([], { cwd: workspace });
    expect(await say(backend, `fs-write ${workspace}/sub/dir/out.txt written by agent`)).toBe('written');
    expect(readFileSync(path.join(workspace, 'sub/dir/out.txt'), 'utf8')).toBe('written by agent');
    expect(await say(backend, `fs-write ${outsideDir}/x.txt nope`)).toMatch(/outside the workspace/);
  });

  it('refuses to write through a dangling symlink that points outside the workspace', async () => {
    const workspace = h.tempDir();
    const outsideDir = h.tempDir();
    const target = path.join(outsideDir, 'planted.txt');
    symlinkSync(target, path.join(workspace, 'dangling'));
    const report = new RecordingReporter();
    await h.backend([], { cwd: workspace }).run(makeTurn(`fs-write ${workspace}/dangling pwned`), report);
    expect(report.output).toMatch(/outside the workspace|refused/);
    expect(existsSync(target)).toBe(false);
  });

  it('answers method-not-found for a capability the config turned off', async () => {
    const workspace = h.tempDir();
    writeFileSync(path.join(workspace, 'a.txt'), 'a');
    const backend = h.backend([], { cwd: workspace, fs_read: false });
    expect(await say(backend, `fs-read ${workspace}/a.txt`)).toMatch(/^error=-32601/);
  });

  it('runs a terminal in the workspace with the agent env and reports its exit', async () => {
    const workspace = h.tempDir();
    const script = path.join(workspace, 'show.mjs');
    writeFileSync(
      script,
      "console.log(process.env.FAKE_TERM_VAR + ':' + process.env.CONTACTOR_AGENT + ':' + process.cwd()); process.exit(4);",
    );
    const output = await say(h.backend([], { cwd: workspace }), `terminal ${process.execPath} ${script}`);
    expect(output).toBe(`exit=4 output=from-agent:fake:${workspace}`);
  });

  it('runs a terminal in a subdirectory and refuses a cwd outside the workspace', async () => {
    const workspace = h.tempDir();
    mkdirSync(path.join(workspace, 'sub'));
    const script = path.join(workspace, 'cwd.mjs');
    writeFileSync(script, 'console.log(process.cwd())');
    const backend = h.backend([], { cwd: workspace });
    expect(await say(backend, `terminal cwd=${workspace}/sub ${process.execPath} ${script}`)).toBe(
      `exit=0 output=${workspace}/sub`,
    );
    expect(await say(backend, `terminal cwd=/ ${process.execPath} ${script}`)).toMatch(
      /^error=-32602 .*outside the workspace/,
    );
  });

  it('reports a terminal command that cannot start', async () => {
    const backend = h.backend();
    expect(await say(backend, 'terminal /nonexistent/tool')).toMatch(
      /^error=-32603 .*could not start \/nonexistent\/tool/,
    );
  });
});

describe('sliceLines', () => {
  it('applies the 1-based line and the limit', () => {
    expect(sliceLines('a\nb\nc\nd', 2, 2)).toBe('b\nc');
    expect(sliceLines('a\nb\nc', 3, undefined)).toBe('c');
    expect(sliceLines('a\nb\nc', null, 1)).toBe('a');
    expect(sliceLines('a\nb', undefined, undefined)).toBe('a\nb');
  });
});
