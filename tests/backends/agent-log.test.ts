/**
 * An agent's stderr kept in a size-capped, rotated, redacted file (backends/process/agent-log.ts), with the
 * real stream a child process writes.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, expect, it } from 'vitest';
import { AgentLog } from '../../main/backends/process/agent-log.js';
import { redact } from '../../main/domain/redaction.js';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

function logIn(maxBytes?: number): AgentLog {
  const dir = mkdtempSync(path.join(tmpdir(), 'contactor-agent-log-'));
  dirs.push(dir);
  return new AgentLog({
    file: path.join(dir, 'logs', 'agents', 'a.log'),
    dataDir: dir,
    redact: (line) => redact(line, ['bridge-token-1234']),
    ...(maxBytes !== undefined ? { maxBytes } : {}),
  });
}

function written(stream: PassThrough): Promise<void> {
  return new Promise((resolve) => {
    stream.on('end', () => setImmediate(resolve));
    stream.end();
  });
}

it('keeps each stderr line stamped with the time and pid, redacted, in a user-only file', async () => {
  const log = logIn();
  const stderr = new PassThrough();
  log.attach(stderr, 4242);
  stderr.write('WARNING: proceeding, even though we could not update PATH\nkey sk-ant-api03-');
  stderr.write(`${'x'.repeat(40)} and token=bridge-token-1234\nno line end`);
  await written(stderr);
  const lines = readFileSync(log.file, 'utf8').trimEnd().split('\n');
  expect(lines).toHaveLength(3);
  expect(lines[0]).toMatch(/^\d{4}-\d\d-\d\dT\S+ \[4242\] WARNING: proceeding, even though we could not update PATH$/);
  expect(lines[1]).not.toContain('sk-ant-api03');
  expect(lines[1]).not.toContain('bridge-token-1234');
  expect(lines[2]).toMatch(/\[4242\] no line end$/);
  if (process.platform !== 'win32') expect(statSync(log.file).mode & 0o077).toBe(0);
});

it('rotates past its size cap, keeping two older files and no more', async () => {
  const log = logIn(2000);
  const stderr = new PassThrough();
  log.attach(stderr, 1);
  for (let i = 0; i < 200; i++) stderr.write(`line ${i} ${'y'.repeat(50)}\n`);
  await written(stderr);
  expect(statSync(log.file).size).toBeLessThanOrEqual(2000 + 200);
  expect(existsSync(`${log.file}.1`)).toBe(true);
  expect(existsSync(`${log.file}.2`)).toBe(true);
  expect(existsSync(`${log.file}.3`)).toBe(false);
  expect(readFileSync(log.file, 'utf8')).toContain('line 199 ');
});
