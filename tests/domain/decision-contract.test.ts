import { BridgeError } from '../../main/domain/errors.js';
import { describe, expect, it } from 'vitest';
import {
  DECISION_CONTRACT,
  DECISION_MARKER,
  decisionFollowUp,
  parseDecision,
  resolveDecisionAnswer,
  withDecisionContract,
} from '../../main/domain/decision-contract.js';

function reply(lines: string[]): string {
  return lines.join('\n');
}

const VALID = reply([
  'I can store the settings either way.',
  'Which format should I use?',
  DECISION_MARKER,
  '- YAML',
  '- TOML',
  'RECOMMEND: TOML',
  'REASON: comments and no indentation traps',
]);

describe('parseDecision', () => {
  it('parses a reply that ends with a valid block; the question is the text before it', () => {
    expect(parseDecision(VALID)).toEqual({
      question: 'I can store the settings either way.\nWhich format should I use?',
      options: ['YAML', 'TOML'],
      recommend: 'TOML',
      reason: 'comments and no indentation traps',
    });
  });

  it('accepts trailing blank lines and surrounding spaces', () => {
    expect(parseDecision(`${VALID}\n\n  \n`)?.options).toEqual(['YAML', 'TOML']);
    expect(parseDecision(VALID.replace('- YAML', '  -   YAML  '))?.options).toEqual(['YAML', 'TOML']);
  });

  it('accepts a block with no question before it (empty question)', () => {
    expect(parseDecision(VALID.slice(VALID.indexOf(DECISION_MARKER)))?.question).toBe('');
  });

  it('parses Windows CRLF and old-Mac CR line endings the same', () => {
    const expected = parseDecision(VALID);
    expect(parseDecision(VALID.replace(/\n/g, '\r\n'))).toEqual(expected);
    expect(parseDecision(`${VALID.replace(/\n/g, '\r\n')}\r\n`)).toEqual(expected);
    expect(parseDecision(VALID.replace(/\n/g, '\r'))).toEqual(expected);
  });

  it('keeps markdown inside options verbatim and matches RECOMMEND against it exactly', () => {
    const parsed = parseDecision(
      reply([
        'Pick one:',
        DECISION_MARKER,
        '- **bold** rewrite of `config.ts`',
        '- keep `config.ts` as _is_',
        'RECOMMEND: keep `config.ts` as _is_',
        'REASON: smaller diff',
      ]),
    );
    expect(parsed?.options).toEqual(['**bold** rewrite of `config.ts`', 'keep `config.ts` as _is_']);
    expect(parsed?.recommend).toBe('keep `config.ts` as _is_');
  });

  it('refuses a block that is not the last thing in the reply', () => {
    expect(parseDecision(`${VALID}\nLet me know!`)).toBeUndefined();
    expect(parseDecision(`${VALID}\n\`\`\``)).toBeUndefined();
  });

  it('refuses a RECOMMEND that is not exactly one of the options', () => {
    expect(parseDecision(VALID.replace('RECOMMEND: TOML', 'RECOMMEND: JSON'))).toBeUndefined();
    expect(parseDecision(VALID.replace('RECOMMEND: TOML', 'RECOMMEND: toml'))).toBeUndefined();
    expect(parseDecision(VALID.replace('RECOMMEND: TOML', 'RECOMMEND: 2'))).toBeUndefined();
  });

  it('refuses the placeholders of the contract text', () => {
    expect(parseDecision(VALID.replace('- YAML', '- <option 1>').replace('- TOML', '- <option 2>'))).toBeUndefined();
    expect(parseDecision(VALID.replace('- YAML', '- <option 1>'))).toBeUndefined();
    expect(
      parseDecision(VALID.replace('RECOMMEND: TOML', 'RECOMMEND: <copy one option above verbatim>')),
    ).toBeUndefined();
    expect(
      parseDecision(VALID.replace('REASON: comments and no indentation traps', 'REASON: <one short line>')),
    ).toBeUndefined();
  });

  it('refuses fewer than two options, duplicate options and empty ones', () => {
    expect(parseDecision(reply([DECISION_MARKER, '- TOML', 'RECOMMEND: TOML', 'REASON: only one']))).toBeUndefined();
    expect(parseDecision(reply([DECISION_MARKER, 'RECOMMEND: TOML', 'REASON: none']))).toBeUndefined();
    expect(parseDecision(VALID.replace('- YAML', '- TOML'))).toBeUndefined();
    expect(parseDecision(VALID.replace('- YAML', '- '))).toBeUndefined();
  });

  it('refuses a block missing REASON, an empty reason, or RECOMMEND and REASON swapped', () => {
    expect(parseDecision(VALID.slice(0, VALID.lastIndexOf('\nREASON:')))).toBeUndefined();
    expect(parseDecision(VALID.replace('REASON: comments and no indentation traps', 'REASON:'))).toBeUndefined();
    const swapped = VALID.replace(
      'RECOMMEND: TOML\nREASON: comments and no indentation traps',
      'REASON: x\nRECOMMEND: TOML',
    );
    expect(parseDecision(swapped)).toBeUndefined();
  });

  it('ignores ordinary replies and replies that only mention the marker', () => {
    expect(parseDecision('All done: wrote config.toml')).toBeUndefined();
    expect(parseDecision('')).toBeUndefined();
    expect(parseDecision(`I never needed ${DECISION_MARKER} this time.`)).toBeUndefined();
  });

  it('does not parse an agent that echoes its whole prompt, contract included', () => {
    const prompt = 'Summarise the README in two lines.';
    expect(parseDecision(withDecisionContract(prompt))).toBeUndefined();
    expect(parseDecision(`You said:\n${withDecisionContract(prompt)}\n`)).toBeUndefined();
    expect(parseDecision(DECISION_CONTRACT)).toBeUndefined();
  });

  it('takes the last block when an echoed contract is followed by a real decision', () => {
    const parsed = parseDecision(`${withDecisionContract('Pick a format.')}\n\n${VALID}`);
    expect(parsed).toMatchObject({ options: ['YAML', 'TOML'], recommend: 'TOML' });
  });
});

describe('withDecisionContract', () => {
  it('appends the contract after the prompt, unchanged', () => {
    const text = withDecisionContract('Do X.');
    expect(text.startsWith('Do X.')).toBe(true);
    expect(text.endsWith(DECISION_CONTRACT)).toBe(true);
    expect(text).toContain(DECISION_MARKER);
  });
});

describe('resolveDecisionAnswer', () => {
  const options = ['YAML', 'TOML', 'JSON with comments'];

  it('takes an option by its exact text', () => {
    expect(resolveDecisionAnswer(options, 'TOML')).toEqual({ choice: 'TOML', free: false });
    expect(resolveDecisionAnswer(options, '  JSON with comments ')).toEqual({
      choice: 'JSON with comments',
      free: false,
    });
  });

  it('takes an option by its text in any case, returning the option as written', () => {
    expect(resolveDecisionAnswer(options, 'toml')).toEqual({ choice: 'TOML', free: false });
    expect(resolveDecisionAnswer(options, 'json WITH comments')).toEqual({ choice: 'JSON with comments', free: false });
  });

  it('takes an option by its 1-based number', () => {
    expect(resolveDecisionAnswer(options, '1')).toEqual({ choice: 'YAML', free: false });
    expect(resolveDecisionAnswer(options, '3')).toEqual({ choice: 'JSON with comments', free: false });
  });

  it('reads what looks like a number as one: "2." as printed in the list, and refuses "-1" or "9." out of range', () => {
    expect(resolveDecisionAnswer(options, ' 2. ')).toEqual({ choice: 'TOML', free: false });
    expect(resolveDecisionAnswer(options, '1.')).toEqual({ choice: 'YAML', free: false });
    expect(() => resolveDecisionAnswer(options, '-1')).toThrow(/no option -1: choose 1-3/);
    expect(() => resolveDecisionAnswer(options, '9.')).toThrow(/no option 9\.: choose 1-3/);
    expect(() => resolveDecisionAnswer(options, '0.')).toThrow(BridgeError);
    expect(resolveDecisionAnswer(options, '-1', { freeText: true })).toEqual({ choice: '-1', free: true });
    expect(resolveDecisionAnswer(options, '1.', { freeText: true })).toEqual({ choice: '1.', free: true });
    expect(resolveDecisionAnswer(options, '1.5')).toEqual({ choice: '1.5', free: true });
  });

  it('refuses a bare number outside 1..N, listing the options, unless the caller says it is free text', () => {
    expect(() => resolveDecisionAnswer(options, '0')).toThrow(/no option 0: choose 1-3 \(1\. YAML; 2\. TOML/);
    expect(() => resolveDecisionAnswer(options, '4')).toThrow(BridgeError);
    expect(resolveDecisionAnswer(options, '4', { freeText: true })).toEqual({ choice: '4', free: true });
    expect(resolveDecisionAnswer(options, '2', { freeText: true })).toEqual({ choice: '2', free: true });
    expect(resolveDecisionAnswer(options, '4 of them')).toEqual({ choice: '4 of them', free: true });
  });

  it('passes any other answer on as free text', () => {
    expect(resolveDecisionAnswer(options, 'neither, use INI')).toEqual({ choice: 'neither, use INI', free: true });
  });

  it('prefers an option whose text is a number over the numbering', () => {
    expect(resolveDecisionAnswer(['2', '1'], '1')).toEqual({ choice: '1', free: false });
  });
});

describe('decisionFollowUp', () => {
  it('carries the question and the choice, with the original prompt first when given', () => {
    const alone = decisionFollowUp({ question: 'Which format?', choice: 'TOML' });
    expect(alone).toBe('You asked: Which format?\nThe requester chose: TOML\nContinue with that choice.');
    expect(decisionFollowUp({ question: 'Which format?', choice: 'TOML' }, 'Write the config.')).toBe(
      `Write the config.\n\n---\n${alone}`,
    );
  });
});
