/**
 * The a2a backend keeps, per context of ours, the peer's contextId and a parked peer task
 * (backends/a2a/backend.ts): the 500 most recently used contexts, not every one of a process that runs
 * for weeks. White-box: the map and its accessor are private; no peer is reached (the card read at
 * construction fails against a closed port, which the backend tolerates).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { A2aRemoteBackend } from '../../main/backends/a2a/backend.js';
import { A2aAgentSchema } from '../../main/schema/config.js';

const backends: A2aRemoteBackend[] = [];
afterEach(async () => {
  for (const b of backends.splice(0)) await b.close();
});

interface Inside {
  conversations: Map<string, { peerContextId?: string }>;
  conversation(contextId: string): { peerContextId?: string };
}

describe('a2a conversations', () => {
  it('keeps the 500 most recently used contexts; the least recently used is forgotten', () => {
    const config = A2aAgentSchema.parse({ kind: 'a2a', url: 'http://127.0.0.1:1/' });
    const backend = new A2aRemoteBackend({ name: 'remote', config, env: {} });
    backends.push(backend);
    const inside = backend as unknown as Inside;
    inside.conversation('ctx-0').peerContextId = 'peer-0';
    for (let i = 1; i < 500; i++) inside.conversation(`ctx-${i}`);
    inside.conversation('ctx-0'); // used again: ctx-1 is now the least recently used
    inside.conversation('ctx-500'); // 501 contexts: one too many
    expect([inside.conversations.size, inside.conversations.has('ctx-1'), inside.conversation('ctx-0')]).toEqual([
      500,
      false,
      { peerContextId: 'peer-0' },
    ]);
  });
});
