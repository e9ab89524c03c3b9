/** Credential-shaped strings never reach the log or the audit trail. */
import { describe, expect, it } from 'vitest';
import { redact, redactDeep } from '../main/logging.js';

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
