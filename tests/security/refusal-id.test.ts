/**
 * A request refused for its token (401) answers with its own JSON-RPC id, read from at most 64 KiB of
 * its body (transport/peek-id.ts); nothing more is read before the token is checked. The attacks: a
 * huge body without a token, and one that announces a huge body and never sends it — both must get
 * their 401 at once and lose their connection, never be read to the end.
 */
import type { Socket } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTestBridge, type TestBridge } from '../helpers/bridge.js';
import type { Wire } from '../a2a/wire.js';
import { openRaw } from './raw-connection.js';

let tb: TestBridge;
const sockets: Socket[] = [];
beforeAll(async () => {
  tb = await startTestBridge({ isolatedEnv: true });
});
afterEach(() => {
  for (const s of sockets.splice(0)) s.destroy();
});
afterAll(() => tb?.cleanup());

async function wrongToken(body: string): Promise<{ status: number; json: Wire; connection: string | null }> {
  const res = await fetch(`${tb.url}/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer wrong' },
    body,
  });
  return { status: res.status, json: await res.json(), connection: res.headers.get('connection') };
}

describe('401 answers carry the request id', () => {
  it.each([
    [42, 42],
    ['req-7', 'req-7'],
    [null, null],
  ])('id %j comes back as %j', async (id, expected) => {
    const res = await wrongToken(JSON.stringify({ jsonrpc: '2.0', id, method: 'agents/list' }));
    expect(res.status).toBe(401);
    expect(res.json).toMatchObject({ jsonrpc: '2.0', id: expected, error: { code: -32066 } });
  });

  it.each([
    ['not JSON', '{"jsonrpc":"2.0","id":3,'],
    ['a batch', JSON.stringify([{ jsonrpc: '2.0', id: 1, method: 'agents/list' }])],
    ['an id that is an object', JSON.stringify({ jsonrpc: '2.0', id: { x: 1 }, method: 'agents/list' })],
  ])('%s: id null', async (_name, body) => {
    const res = await wrongToken(body);
    expect(res.status).toBe(401);
    expect(res.json.id).toBeNull();
  });

  it('a body over 64 KiB is not read for its id: null, and the connection is closed', async () => {
    const big = JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'agents/list', params: { pad: 'x'.repeat(70_000) } });
    const res = await wrongToken(big);
    expect(res.status).toBe(401);
    expect(res.json.id).toBeNull();
    expect(res.connection).toBe('close');
  });

  it('attack: announcing a 50 MB body and sending none still gets the 401 at once, and the connection closed', async () => {
    const conn = await openRaw(new URL(tb.url), sockets);
    const { host } = new URL(tb.url);
    conn.socket.write(
      `POST / HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/json\r\nAuthorization: Bearer wrong\r\n` +
        'Content-Length: 50000000\r\n\r\n',
    );
    await new Promise<void>((resolve) => conn.socket.once('close', () => resolve()));
    expect(conn.received()).toMatch(/^HTTP\/1\.1 401 /);
    expect(conn.received()).toContain('"id":null');
  });
});
