/**
 * `npx tsx bench/acp-parse.ts [messages]` (not part of `npm run bench`): what the ACP SDK's second zod parse of
 * a `session/update` costs. The same 1 KiB text chunks go, from memory, through the SDK's real client app
 * twice over: with a typed `session/update` handler (the SDK's session router parses each, then the handler's
 * parse) and with a wildcard handler (the router's parse only, the handler gets the raw params). The difference
 * per message is the parse the bridge no longer makes for reply text (docs/benchmark.md#round-6-the-10-mb-reply).
 */
import { client, methods, type Stream } from '@agentclientprotocol/sdk';

const messages = Number(process.argv[2] ?? 20_000);
const text = 'x'.repeat(1024);

async function microsPerMessage(typed: boolean): Promise<number> {
  let heard = 0;
  let done!: () => void;
  const finished = new Promise<void>((resolve) => (done = resolve));
  const hear = (): void => {
    heard += 1;
    if (heard === messages) done();
  };
  const app = typed
    ? client({ name: 'bench' }).onNotification(methods.client.session.update, hear)
    : client({ name: 'bench' }).onNotification('*', hear);
  let feed!: ReadableStreamDefaultController<unknown>;
  const readable = new ReadableStream({ start: (controller) => void (feed = controller) });
  app.connect({ readable, writable: new WritableStream({ write() {} }) } as Stream);
  const t0 = performance.now();
  for (let i = 0; i < messages; i += 1) {
    feed.enqueue({
      jsonrpc: '2.0',
      method: 'session/update',
      params: { sessionId: 's', update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text } } },
    });
  }
  await finished;
  return ((performance.now() - t0) * 1000) / messages;
}

for (let round = 1; round <= 4; round += 1) {
  const both = await microsPerMessage(true);
  const routerOnly = await microsPerMessage(false);
  console.log(
    `round ${round}${round === 1 ? ' (warm-up)' : ''}: both parses ${both.toFixed(1)} µs per message, the router's alone ${routerOnly.toFixed(1)} µs`,
  );
}
