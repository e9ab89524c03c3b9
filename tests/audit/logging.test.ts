/** Credential-shaped strings never reach the log or the audit trail. */
import { existsSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createLogger, redact, redactDeep } from '../../main/audit/logging.js';
import { openOwnFileForAppend } from '../../main/platform/protected-files.js';

/** Files this process holds open, where the OS lets us list them (Linux); undefined elsewhere. */
function openFiles(): string[] | undefined {
  if (process.platform !== 'linux') return undefined;
  return readdirSync('/proc/self/fd').flatMap((fd) => {
    try {
      return [readlinkSync(`/proc/self/fd/${fd}`)];
    } catch {
      return []; // the fd readdir itself used, closed meanwhile
    }
  });
}

describe('createLogger', () => {
  it('close() lets go of bridge.log at once: the data dir can be removed (Windows refuses while it is open)', () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'contactor-log-'));
    const log = createLogger(
      dataDir,
      () => ['the-token'],
      (file) => openOwnFileForAppend(dataDir, file),
    );
    const file = path.join(dataDir, 'logs', 'bridge.log');
    log.info({ token: 'the-token' }, 'before close');
    expect(openFiles()?.includes(file) ?? true).toBe(true);
    log.close();
    expect(openFiles()?.includes(file) ?? false).toBe(false);
    expect(() => log.info('after close')).not.toThrow();
    log.close();
    const lines = readFileSync(file, 'utf8').trim().split('\n');
    expect(lines.map((l) => (JSON.parse(l) as { msg: string }).msg)).toEqual(['before close']);
    expect(lines[0]).not.toContain('the-token');
    rmSync(dataDir, { recursive: true });
    expect(existsSync(dataDir)).toBe(false);
  });
});

describe('redact', () => {
  it.each([
    ['an OpenAI-style key', 'key sk-proj-abcdefghijklmnopqrstuv was used', 'key [REDACTED] was used'],
    ['a GitHub token', 'ghp_abcdefghijklmnopqrstuvwxyz0123', '[REDACTED]'],
    ['an AWS key id', 'id AKIAABCDEFGHIJKLMNOP', 'id [REDACTED]'],
    ['a JWT', 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NSJ9.c2lnbmF0dXJlLXZhbHVl', '[REDACTED]'],
    ['a bearer header', 'Authorization: Bearer abcdefghijklmnopqrstu', 'Authorization: Bearer [REDACTED]'],
    ['a private key', '-----BEGIN RSA PRIVATE KEY-----\nMIIB\n-----END RSA PRIVATE KEY-----', '[REDACTED]'],
  ])('removes %s', (_what, input, expected) => {
    expect(redact(input)).toBe(expected);
  });

  it('removes exact secrets (the bridge token) and leaves ordinary text alone', () => {
    expect(redact('token=abc123-very-secret here', ['abc123-very-secret'])).toBe('token=[REDACTED] here');
    expect(redact('skip the tests, then run sk-8 build')).toBe('skip the tests, then run sk-8 build');
  });

  it('walks objects, arrays and errors', () => {
    const out = redactDeep(
      { a: ['sk-abcdefghijklmnopqrstuv'], err: new Error('bad ghp_abcdefghijklmnopqrstuvwxyz0123') },
      [],
    );
    expect(JSON.stringify(out)).not.toMatch(/sk-abc|ghp_abc/);
  });
});
