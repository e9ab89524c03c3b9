import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { A2aRemoteBackend } from '../../main/backends/a2a/backend.js';
import { A2aAgentSchema } from '../../main/schema/config.js';
import { startSdkEchoServer, type SdkEchoServer } from '../fixtures/a2a/sdk-echo-server.js';
import { makeTurn, recorder } from './turn-fakes.js';

function backend(url: string, extra: Record<string, unknown> = {}, env: Record<string, string> = {}): A2aRemoteBackend {
  const config = A2aAgentSchema.parse({ kind: 'a2a', url, ...extra });
  return new A2aRemoteBackend({ name: 'remote', config, env, pollIntervalMs: 50 });
}

describe.each([
  { protocol: '1.0' as const, streaming: true },
  { protocol: '1.0' as const, streaming: false },
  { protocol: '0.3' as const, streaming: true },
  { protocol: '0.3' as const, streaming: false },
])('a2a backend against the official SDK server (A2A $protocol, streaming $streaming)', ({ protocol, streaming }) => {
  let peer: SdkEchoServer;
  beforeAll(async () => {
    peer = await startSdkEchoServer({ protocol, streaming });
  });
  afterAll(() => peer.close());

  it('picks the interface from the card, echoes, and reflects the peer in its traits', async () => {
    const b = backend(peer.url);
    const rec = recorder();
    const outcome = await b.run(
      makeTurn({ text: 'hello there', delegationDepth: 1, visitedAgents: ['caller', 'remote'] }),
      rec.reporter,
    );
    expect(outcome).toEqual({ kind: 'completed' });
    expect(rec.text()).toBe('echo: hello there');
    expect(rec.receipt()).toMatchObject({
      peerProtocol: protocol,
      peerStreaming: streaming,
      peerState: 'completed',
      peerTaskId: expect.any(String),
    });
    // A card without contactor's traits extension says only whether it streams: the rest is unknown.
    expect(b.traits).toMatchObject({
      backend: 'a2a',
      streaming,
      interruptible: true,
      multiTurn: false,
      inputRequired: false,
    });
    expect(b.traits.limits).toContain('does not say whether it remembers a conversation');
    if (streaming) expect(rec.texts.length).toBeGreaterThan(1);
    const methods = protocol === '1.0' ? ['SendStreamingMessage', 'SendMessage'] : ['message/stream', 'message/send'];
    expect(peer.methods).toContain(streaming ? methods[0] : methods[1]);
  });

  it("passes the peer's files, links and data through unchanged, each once", async () => {
    const rec = recorder();
    expect(await backend(peer.url).run(makeTurn({ text: 'files please' }), rec.reporter)).toEqual({
      kind: 'completed',
    });
    expect(rec.text()).toBe('see attached');
    expect(rec.parts).toEqual([
      {
        kind: 'file',
        file: { bytes: Buffer.from('PNGDATA').toString('base64'), mimeType: 'image/png', name: 'shot.png' },
      },
      {
        kind: 'file',
        file: { uri: 'https://example.com/report.pdf', mimeType: 'application/pdf', name: 'report.pdf' },
      },
      { kind: 'data', data: { passed: 3 } },
    ]);
  });

  it('carries the loop guards across the hop in the message metadata', async () => {
    await backend(peer.url).run(
      makeTurn({ text: 'guards', delegationDepth: 1, visitedAgents: ['caller', 'remote'] }),
      recorder().reporter,
    );
    expect(peer.received.at(-1)!.metadata).toMatchObject({
      delegationDepth: 2,
      visitedAgents: ['caller', 'remote'],
      callerAgent: 'remote',
    });
  });

  it("ends the turn with the peer's question, then continues the peer task with the next message", async () => {
    const b = backend(peer.url);
    const first = recorder();
    expect(await b.run(makeTurn({ contextId: 'ctx-ask', text: 'ask me' }), first.reporter)).toEqual({
      kind: 'completed',
    });
    expect(first.text()).toBe('Which colour do you want?');
    const parked = first.receipt();
    expect(parked).toMatchObject({ peerState: 'input-required' });

    const second = recorder();
    expect(await b.run(makeTurn({ contextId: 'ctx-ask', text: 'blue', followUp: true }), second.reporter)).toEqual({
      kind: 'completed',
    });
    expect(second.text()).toBe('you said: blue');
    expect(second.receipt().peerTaskId).toBe(parked.peerTaskId);
    expect(peer.received.at(-1)).toMatchObject({ text: 'blue', taskId: parked.peerTaskId });
  });

  it("a peer failure is a non-retryable failure with the peer's reason", async () => {
    const outcome = await backend(peer.url).run(makeTurn({ text: 'fail now' }), recorder().reporter);
    expect(outcome).toEqual({
      kind: 'failed',
      retryable: false,
      reason: 'the remote agent failed: the echo agent was told to fail',
    });
  });

  it('forwards a cancel to the peer when the turn is aborted', async () => {
    const abort = new AbortController();
    const rec = recorder();
    const running = backend(peer.url).run(makeTurn({ text: 'slow job', signal: abort.signal }), rec.reporter);
    await expect.poll(() => rec.receipt().peerTaskId, { timeout: 5000 }).toBeTruthy();
    abort.abort();
    expect(await running).toEqual({ kind: 'failed', retryable: true, reason: 'stopped' });
    expect(peer.canceled).toContain(rec.receipt().peerTaskId);
    expect(rec.receipt()).toMatchObject({ peerCancel: 'sent' });
  });
});

describe('a2a backend: streams, credentials and bad peers', () => {
  let peer: SdkEchoServer;
  beforeAll(async () => {
    peer = await startSdkEchoServer({ protocol: '1.0', streaming: true });
  });
  afterAll(() => peer.close());

  it('resubscribes when the stream drops and still delivers the whole reply once', async () => {
    peer.cutStreams = true;
    try {
      const rec = recorder();
      const outcome = await backend(peer.url).run(makeTurn({ text: 'resume me' }), rec.reporter);
      expect(outcome).toEqual({ kind: 'completed' });
      expect(rec.text()).toBe('echo: resume me');
      expect(rec.receipt().resubscribed).toBeGreaterThanOrEqual(1);
      expect(peer.methods).toContain('SubscribeToTask');
    } finally {
      peer.cutStreams = false;
    }
  });

  it('resumes a dropped stream after the last SSE event id it saw (Last-Event-ID)', async () => {
    peer.cutStreams = true;
    peer.eventIds = true;
    try {
      const rec = recorder();
      const outcome = await backend(peer.url).run(makeTurn({ text: 'resume after' }), rec.reporter);
      expect(outcome).toEqual({ kind: 'completed' });
      expect(rec.text()).toBe('echo: resume after');
      // The cut stream delivered only its first event, numbered 1: the resubscribe asks for what follows.
      expect(peer.resumedAfter.at(-1)).toBe('1');
    } finally {
      peer.cutStreams = false;
      peer.eventIds = false;
    }
  });

  it('continues in a new peer task when the parked one is gone', async () => {
    const b = backend(peer.url);
    const first = recorder();
    await b.run(makeTurn({ contextId: 'ctx-lost', text: 'ask again' }), first.reporter);
    const parked = first.receipt().peerTaskId as string;
    // Someone else ends the parked task at the peer.
    await fetch(`${peer.url}/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'A2A-Version': '1.0' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'CancelTask', params: { id: parked } }),
    });
    const second = recorder();
    const outcome = await b.run(makeTurn({ contextId: 'ctx-lost', text: 'green', followUp: true }), second.reporter);
    expect(outcome).toEqual({ kind: 'completed' });
    expect(second.text()).toBe('echo: green');
    expect(second.receipt()).toMatchObject({ peerTaskLost: parked });
    expect(second.receipt().peerTaskId).not.toBe(parked);
  });

  it('a follow-up whose conversation with the peer is gone sends its cold text (the whole request)', async () => {
    // A fresh backend holds no conversation: as after the 500 most recent ones pushed it out.
    const rec = recorder();
    const cold = { text: 'pick a colour, then: green', attachments: [] };
    const outcome = await backend(peer.url).run(
      makeTurn({ contextId: 'ctx-evicted', text: 'green', followUp: true, cold }),
      rec.reporter,
    );
    expect(outcome).toEqual({ kind: 'completed' });
    expect(rec.text()).toBe('echo: pick a colour, then: green');
  });

  it('pins the protocol when config says so', async () => {
    const dual = await startSdkEchoServer({ protocol: '1.0', streaming: false });
    try {
      const rec = recorder();
      // A v1-only card cannot satisfy protocol 0.3: said plainly, not guessed.
      const outcome = await backend(dual.url, { protocol: '0.3' }).run(makeTurn(), rec.reporter);
      expect(outcome).toMatchObject({
        kind: 'undelivered',
        retryable: false,
        reason: expect.stringMatching(/offers no an? A2A 0\.3 JSON-RPC interface|offers no A2A 0\.3/),
      });
    } finally {
      await dual.close();
    }
  });

  it('a missing token variable is undelivered, naming the variable', async () => {
    const outcome = await backend(peer.url, { token_env: 'PEER_TOKEN_NOT_SET' }).run(makeTurn(), recorder().reporter);
    expect(outcome).toMatchObject({
      kind: 'undelivered',
      retryable: false,
      reason: expect.stringContaining('PEER_TOKEN_NOT_SET'),
    });
  });

  it('an unreachable peer is undelivered and retryable', async () => {
    const outcome = await backend('http://127.0.0.1:9').run(makeTurn(), recorder().reporter);
    expect(outcome).toMatchObject({
      kind: 'undelivered',
      retryable: true,
      reason: expect.stringMatching(/could not read the agent card/),
    });
  });
});
