/**
 * Compiled approval-rule patterns (runtime/approval-rules.ts) are kept by source, the 256 most recently
 * used: a config reloaded for weeks does not keep every pattern it ever held. A pattern compiled again
 * still matches as before.
 */
import { describe, expect, it } from 'vitest';
import { compiledPatternCount, matchRule } from '../../main/runtime/approval-rules.js';

describe('compiled approval-rule patterns', () => {
  it('keep at most 256; an evicted pattern is compiled again and still decides', () => {
    const call = { title: 'run', kind: 'execute', rawInput: { command: 'npm run build-7' } };
    const verdicts: (string | undefined)[] = [];
    for (let i = 0; i < 300; i++) {
      verdicts.push(matchRule([{ action: 'allow', command: `^npm run build-${i}$` }], call)?.action);
    }
    expect(compiledPatternCount()).toBe(256);
    expect(verdicts.filter((v) => v === 'allow')).toEqual(['allow']);
    expect(verdicts.indexOf('allow')).toBe(7);
    // ^npm run build-7$ was evicted (the least recently used of 300): compiled again, same verdict.
    expect(matchRule([{ action: 'allow', command: '^npm run build-7$' }], call)).toEqual({ action: 'allow', rule: 0 });
    expect(compiledPatternCount()).toBe(256);
  });
});
