import { describe, expect, it } from 'vitest';
import { promptBlocks } from '../../main/backends/acp-prompt.js';
import type { Part } from '../../main/domain/task.js';
import { makeTurn } from '../fixtures/acp/harness.js';

const attachments: Part[] = [
  { kind: 'file', file: { uri: 'file:///w/a.ts', name: 'a.ts', mimeType: 'text/plain' } },
  { kind: 'file', file: { bytes: 'iVBOR', mimeType: 'image/png', name: 'shot.png' } },
  { kind: 'file', file: { bytes: 'ZGF0YQ==', mimeType: 'application/pdf', name: 'spec.pdf' } },
  { kind: 'data', data: { answer: 42 } },
];

describe('promptBlocks', () => {
  it('sends what the agent accepts and says in words what it left out', () => {
    const blocks = promptBlocks(makeTurn('look', { attachments }), {});
    expect(blocks).toEqual([
      { type: 'text', text: 'look' },
      { type: 'resource_link', uri: 'file:///w/a.ts', name: 'a.ts', mimeType: 'text/plain' },
      { type: 'text', text: '[attachment "shot.png" (image/png) not sent: this agent does not accept images]' },
      {
        type: 'text',
        text: '[attachment "spec.pdf" (application/pdf) not sent: this agent does not accept embedded files]',
      },
      { type: 'text', text: '```json\n{\n  "answer": 42\n}\n```' },
    ]);
  });

  it('embeds images and files when the agent declared it can take them', () => {
    const blocks = promptBlocks(makeTurn('look', { attachments: attachments.slice(1, 3) }), {
      image: true,
      embeddedContext: true,
    });
    expect(blocks.slice(1)).toEqual([
      { type: 'image', data: 'iVBOR', mimeType: 'image/png' },
      { type: 'resource', resource: { uri: 'attachment:spec.pdf', blob: 'ZGF0YQ==', mimeType: 'application/pdf' } },
    ]);
  });
});
