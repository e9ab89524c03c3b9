/**
 * Rich content, inbound: a file an ACP agent cannot take inline (its promptCapabilities do not
 * accept images, audio or embedded resources) is saved in a temp folder of its own — never in the
 * user's workspace — named in the prompt, and removed when the turn ends. Both protocol versions.
 */
import { existsSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { METHODS, call, taskOf, type Version } from '../a2a/wire.js';
import { fakeAcpAgent, startTestBridge, tempDir, type TestBridge } from '../helpers/bridge.js';

let tb: TestBridge;
let workspace: string;
beforeAll(async () => {
  workspace = tempDir();
  tb = await startTestBridge({ agents: { fake: fakeAcpAgent([], { cwd: workspace }) } });
});
afterAll(async () => {
  await tb.cleanup();
  rmSync(workspace, { recursive: true, force: true });
});

const PNG = Buffer.alloc(300, 7);

function message(version: Version): Record<string, unknown> {
  const messageId = crypto.randomUUID();
  return version === '1.0'
    ? {
        messageId,
        role: 'ROLE_USER',
        parts: [{ text: 'saved-files' }, { raw: PNG.toString('base64'), mediaType: 'image/png', filename: 'shot.png' }],
      }
    : {
        kind: 'message',
        messageId,
        role: 'user',
        parts: [
          { kind: 'text', text: 'saved-files' },
          { kind: 'file', file: { bytes: PNG.toString('base64'), mimeType: 'image/png', name: 'shot.png' } },
        ],
      };
}

describe.each(['1.0', '0.3'] as const)('A2A %s', (version) => {
  it('an image for an agent without the image capability is saved, named in the prompt, and removed after the turn', async () => {
    const res = await call(tb, version, METHODS[version].send, { message: message(version) }, { path: '/agents/fake' });
    expect(res.error).toBeUndefined();
    const task = taskOf(version, res.result);
    const reply = (task.artifacts[0].parts as { text?: string }[]).map((p) => p.text ?? '').join('');
    const [path, size] = reply.split(' ');
    expect(size).toBe('300');
    expect(path).toMatch(/shot\.png$/);
    expect(path!.startsWith(tmpdir())).toBe(true);
    expect(path!.startsWith(workspace)).toBe(false);
    expect(existsSync(path!)).toBe(false);
  });
});
