import { afterAll, beforeAll, it } from 'vitest';
import { startTestBridge, echoAgent, fixtureAgent, type TestBridge } from '../helpers/bridge.js';
import { call, fakeAcpAgent, openStream, userMessage } from './wire.js';

let tb: TestBridge;
beforeAll(async () => { tb = await startTestBridge({ agents: { echo: echoAgent(), fake: fakeAcpAgent(), att: fixtureAgent('read-attachments.mjs') } }); });
afterAll(async () => { await tb.cleanup(); });

it('dump', async () => {
  const card = await (await fetch(`${tb.url}/agents/echo/.well-known/agent-card.json`)).json();
  console.log(JSON.stringify(card).slice(0, 600));
  let r = await call(tb, '1.0', 'SendMessage', { message: userMessage('1.0', 'hello') }, { path: '/agents/echo' });
  console.log(JSON.stringify(r));
  r = await call(tb, '0.3', 'message/send', { message: userMessage('0.3', 'decide: A|B') }, { path: '/agents/echo' });
  console.log(JSON.stringify(r));
  const s = await openStream(tb, { version: '1.0', method: 'SendStreamingMessage', params: { message: userMessage('1.0', 'long 1500') }, path: '/agents/fake' });
  console.log(s.status, s.contentType, s.error);
  for (const e of await s.rest()) console.log(e.id, JSON.stringify(e.data.result).slice(0, 200));
  const s2 = await openStream(tb, { version: '0.3', method: 'message/stream', params: { message: userMessage('0.3', 'permission') }, path: '/agents/fake' });
  for (const e of await s2.rest()) console.log(e.id, JSON.stringify(e.data.result).slice(0, 300));
});
