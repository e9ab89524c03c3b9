import { existsSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { alive, FAKE_AGENT, Harness, makeTurn, RecordingReporter, waitFor } from '../fixtures/acp/harness.js';

const h = new Harness();
afterEach(() => h.cleanup());

describe('ACP review: workspace confinement', () => {
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
});

describe('ACP review: process lifetime', () => {
  it('stops an agent whose start outlived the aborted turn that started it, after the idle timeout', async () => {
    const dir = h.tempDir();
    const pidFile = path.join(dir, 'agent.pid');
    // Writes its pid, then becomes the fake agent only later: the turn is aborted while it starts.
    const slow = path.join(dir, 'slow-agent.mjs');
    writeFileSync(
      slow,
      `import { writeFileSync } from 'node:fs';
writeFileSync(${JSON.stringify(pidFile)}, String(process.pid));
setTimeout(() => import(${JSON.stringify(FAKE_AGENT)}), 300);
`,
    );
    const backend = h.backend([], { command: [process.execPath, slow], idle_timeout_s: 0.2 });
    const turn = makeTurn('echo never');
    const running = backend.run(turn, new RecordingReporter());
    await waitFor(() => existsSync(pidFile) && readFileSync(pidFile, 'utf8') !== '', 'the agent to start');
    turn.abort.abort();
    expect(await running).toMatchObject({ kind: 'failed', reason: 'stopped' });
    const pid = Number(readFileSync(pidFile, 'utf8'));
    await waitFor(() => !alive(pid), 'the idle agent to be stopped', 8000);
  });
});

describe('ACP review: an agent that closes stdout but keeps running', () => {
  it('fails the turn instead of hanging, and stops the process', async () => {
    const dir = h.tempDir();
    const pidFile = path.join(dir, 'agent.pid');
    const agent = path.join(dir, 'half-closed-agent.mjs');
    writeFileSync(
      agent,
      `import { closeSync, writeFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
writeFileSync(${JSON.stringify(pidFile)}, String(process.pid));
const send = (m) => process.stdout.write(JSON.stringify({ jsonrpc: '2.0', ...m }) + '\\n');
createInterface({ input: process.stdin }).on('line', (line) => {
  const m = JSON.parse(line);
  if (m.method === 'initialize') send({ id: m.id, result: { protocolVersion: m.params.protocolVersion, agentCapabilities: {} } });
  else if (m.method === 'session/new') send({ id: m.id, result: { sessionId: 's-1' } });
  else if (m.method === 'session/prompt') closeSync(1);
});
setInterval(() => {}, 1000);
`,
    );
    const backend = h.backend([], { command: [process.execPath, agent], idle_timeout_s: 0.2 });
    const outcome = await backend.run(makeTurn('echo hi'), new RecordingReporter());
    expect(outcome).toMatchObject({ kind: 'failed', retryable: true });
    const pid = Number(readFileSync(pidFile, 'utf8'));
    await waitFor(() => !alive(pid), 'the half-closed agent to be stopped', 8000);
  }, 20_000);
});
