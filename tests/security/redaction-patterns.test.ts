/**
 * Every credential pattern the bridge redacts (domain/redaction.ts CREDENTIAL_PATTERNS) carries one
 * sample, and every sample runs here: a pattern that stops matching (a broken Slack webhook pattern, a
 * `token=` that slips through) fails its own case, and a pattern added without a sample cannot exist.
 * SECURITY.md lists the same table.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CREDENTIAL_PATTERNS, redact, REDACTED } from '../../main/domain/redaction.js';
import { REPO_ROOT } from '../helpers/bridge.js';

describe('the credential patterns', () => {
  it('has exactly one sample per pattern', () => {
    const samples = CREDENTIAL_PATTERNS.map((p) => p.sample).filter((s) => s.length > 0);
    expect(samples).toHaveLength(CREDENTIAL_PATTERNS.length);
    expect(new Set(CREDENTIAL_PATTERNS.map((p) => p.name)).size).toBe(CREDENTIAL_PATTERNS.length);
  });

  for (const { name, pattern, sample, secrets } of CREDENTIAL_PATTERNS) {
    it(`${name}: its own pattern finds its sample, and redact() leaves none of its secret`, () => {
      // The pattern alone, so another pattern catching the same sample cannot hide a broken one.
      const alone = sample.replace(new RegExp(pattern.source, pattern.flags), (match, prefix: unknown) =>
        typeof prefix === 'string' && match.startsWith(prefix) ? `${prefix}${REDACTED}` : REDACTED,
      );
      const whole = redact(sample);
      expect(secrets.length).toBeGreaterThan(0);
      for (const secret of secrets) {
        expect(sample).toContain(secret);
        expect(alone, `${name} alone on ${sample}`).not.toContain(secret);
        expect(whole, `redact(${sample})`).not.toContain(secret);
      }
      expect(whole).toContain(REDACTED);
    });
  }

  it('leaves ordinary text alone', () => {
    for (const text of [
      'max_tokens=512 and 3 tokens: fine',
      'a basic understanding of the code',
      'see https://example.com/path?page=2 and http://proxy.example:8080/',
      'the task skipped 16 steps; sk-short',
      'refusing to listen on 0.0.0.0 without a token: set require_token: true, or bind 127.0.0.1',
      'a new token: rotate it with `contactor token rotate`',
    ]) {
      expect(redact(text)).toBe(text);
    }
  });

  it('is the list SECURITY.md gives', () => {
    const security = readFileSync(path.join(REPO_ROOT, 'SECURITY.md'), 'utf8');
    for (const { name } of CREDENTIAL_PATTERNS) expect(security, name).toContain(name);
  });
});
