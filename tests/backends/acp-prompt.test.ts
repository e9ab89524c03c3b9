import { existsSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';
import { preparePrompt } from '../../main/backends/acp/prompt.js';
import type { Part } from '../../main/domain/task.js';
import { makeTurn } from '../fixtures/acp/harness.js';

const attachments: Part[] = [
  { kind: 'file', file: { uri: 'file:///w/a.ts', name: 'a.ts', mimeType: 'text/plain' } },
  { kind: 'file', file: { bytes: 'iVBOR', mimeType: 'image/png', name: 'shot.png' } },
  { kind: 'file', file: { bytes: 'ZGF0YQ==', mimeType: 'application/pdf', name: 'spec.pdf' } },
  { kind: 'data', data: { answer: 42 } },
];

const asIs = (path: string): string => path;

describe('preparePrompt', () => {
  it('sends what the agent accepts; a file it cannot take inline is saved in a temp folder and named', async () => {
    const prompt = await preparePrompt(makeTurn('look', { attachments }), {}, asIs);
    const saved = prompt.blocks
      .map((b) => (b.type === 'text' ? /saved as (\S+):/.exec(b.text)?.[1] : undefined))
      .filter((p): p is string => p !== undefined);
    expect(prompt.blocks).toEqual([
      { type: 'text', text: 'look' },
      { type: 'resource_link', uri: 'file:///w/a.ts', name: 'a.ts', mimeType: 'text/plain' },
      {
        type: 'text',
        text: `[attachment "shot.png" (image/png) saved as ${saved[0]}: this agent does not accept images inline]`,
      },
      {
        type: 'text',
        text: `[attachment "spec.pdf" (application/pdf) saved as ${saved[1]}: this agent does not accept embedded files]`,
      },
      { type: 'text', text: '```json\n{\n  "answer": 42\n}\n```' },
    ]);
    expect(saved.every((p) => p.startsWith(tmpdir()))).toBe(true);
    expect(readFileSync(saved[1]!, 'utf8')).toBe('data');
    await prompt.cleanup();
    expect(saved.some((p) => existsSync(p))).toBe(false);
  });

  it('embeds images and files when the agent declared it can take them', async () => {
    const prompt = await preparePrompt(
      makeTurn('look', { attachments: attachments.slice(1, 3) }),
      { image: true, embeddedContext: true },
      asIs,
    );
    expect(prompt.blocks.slice(1)).toEqual([
      { type: 'image', data: 'iVBOR', mimeType: 'image/png' },
      { type: 'resource', resource: { uri: 'attachment:spec.pdf', blob: 'ZGF0YQ==', mimeType: 'application/pdf' } },
    ]);
  });
});
