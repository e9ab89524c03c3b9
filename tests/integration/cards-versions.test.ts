/** Cards per protocol version, and their caching headers (A2A v1 §8.6). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentCardDualSchema, AgentCardV03Schema, AgentCardV1Schema } from '../../main/schema/card.js';
import { startTestBridge, type TestBridge } from '../helpers/bridge.js';

let b: TestBridge;
beforeAll(async () => {
  b = await startTestBridge();
});
afterAll(() => b?.cleanup());

describe('agent cards', () => {
  it('serves the v1 card for A2A-Version 1.0, and the card both versions read without a header or for 0.3', async () => {
    const v1 = await (
      await fetch(`${b.url}/agents/echo/.well-known/agent-card.json`, { headers: { 'A2A-Version': '1.0' } })
    ).json();
    expect(AgentCardV1Schema.safeParse(v1).success).toBe(true);
    const headerless = await (await fetch(`${b.url}/agents/echo/.well-known/agent-card.json`)).json();
    expect(AgentCardDualSchema.safeParse(headerless).success).toBe(true);
    const v03 = (await (
      await fetch(`${b.url}/agents/echo/.well-known/agent-card.json`, { headers: { 'A2A-Version': '0.3' } })
    ).json()) as { url: string };
    expect(AgentCardV03Schema.safeParse(v03).success).toBe(true);
    expect(v03.url).toBe(`${b.url}/agents/echo`);
    const legacyPath = (await (await fetch(`${b.url}/.well-known/agent.json`)).json()) as { protocolVersion: string };
    expect(legacyPath.protocolVersion).toBe('0.3.0');
  });

  it('sends ETag and Last-Modified, and answers a matching If-None-Match with 304', async () => {
    const first = await fetch(`${b.url}/.well-known/agent-card.json`);
    const etag = first.headers.get('etag');
    expect(etag).toBeTruthy();
    expect(first.headers.get('last-modified')).toBeTruthy();
    expect(first.headers.get('cache-control')).toContain('max-age');
    const again = await fetch(`${b.url}/.well-known/agent-card.json`, { headers: { 'If-None-Match': etag! } });
    expect(again.status).toBe(304);
  });
});
