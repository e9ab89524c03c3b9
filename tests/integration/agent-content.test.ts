/**
 * Rich content, outbound: everything an ACP agent says reaches the client. Images, audio, resource
 * links and embedded resources become A2A parts — v1 `{raw|url|data, mediaType, filename}`, v0.3
 * `{kind: file|data}` — in stream events and in the stored artifact, within the artifact cap counted in
 * decoded bytes; what cannot be passed on is a note in the artifact, never a crash or a silent loss.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ArtifactSchema } from '../../main/schema/a2a.js';
import { ArtifactV1Schema } from '../../main/schema/a2a-v1.js';
import { METHODS, call, describeEvent, openStream, taskOf, userMessage, type Version, type Wire } from '../a2a/wire.js';
import { fakeAcpAgent, startTestBridge, type TestBridge } from '../helpers/bridge.js';

const CAP = 3000;
let tb: TestBridge;
beforeAll(async () => {
  tb = await startTestBridge({ agents: { fake: fakeAcpAgent() }, config: { max_artifact_bytes: CAP } });
});
afterAll(async () => {
  await tb.cleanup();
});

async function send(version: Version, text: string, agent = 'fake'): Promise<Wire> {
  const res = await call(
    tb,
    version,
    METHODS[version].send,
    { message: userMessage(version, text) },
    {
      path: `/agents/${agent}`,
    },
  );
  expect(res.error).toBeUndefined();
  return taskOf(version, res.result);
}

const TCK_PARTS = {
  '1.0': [
    { text: 'Generated text content' },
    { raw: Buffer.from('tck').toString('base64'), mediaType: 'text/plain', filename: 'output.txt' },
    { url: 'https://example.com/output.txt', mediaType: 'text/plain', filename: 'output.txt' },
    { data: { key: 'value', count: 42 } },
  ],
  '0.3': [
    { kind: 'text', text: 'Generated text content' },
    {
      kind: 'file',
      file: { bytes: Buffer.from('tck').toString('base64'), mimeType: 'text/plain', name: 'output.txt' },
    },
    { kind: 'file', file: { uri: 'https://example.com/output.txt', mimeType: 'text/plain', name: 'output.txt' } },
    { kind: 'data', data: { key: 'value', count: 42 } },
  ],
};

describe.each(['1.0', '0.3'] as const)('A2A %s', (version) => {
  // a2a-tck scenarios/core_operations.feature "Task with text/file/file URL/data artifact", checked by
  // tests/compatibility/core_operations/test_data_model.py against the SendMessageResponse schema.
  it('DM-ART-001: text, file bytes, file URL and data artifacts have an artifactId and well-formed parts', async () => {
    const task = await send(version, 'tck-artifacts');
    expect(task.status.state).toMatch(/completed|COMPLETED/);
    expect(task.artifacts).toHaveLength(1);
    const artifact = task.artifacts[0];
    expect(
      version === '1.0' ? ArtifactV1Schema.safeParse(artifact).success : ArtifactSchema.safeParse(artifact).success,
    ).toBe(true);
    expect(artifact.artifactId).toBeTruthy();
    expect(artifact.parts).toEqual(TCK_PARTS[version]);
    expect(task.metadata.warning).toBeUndefined();
  });

  it('an image, a link and JSON stream as artifact updates in the agent order, and are stored the same way', async () => {
    const s = await openStream(tb, {
      version,
      method: METHODS[version].stream,
      params: { message: userMessage(version, 'rich') },
      path: '/agents/fake',
    });
    const events = (await s.rest()).map((e) => describeEvent(version, e));
    const streamed = events.filter((d) => d.kind === 'artifact').flatMap((d) => d.result.artifact.parts as Wire[]);
    const nonText = streamed.filter((p) => (version === '1.0' ? p.text === undefined : p.kind !== 'text'));
    const image =
      version === '1.0'
        ? { raw: expect.stringMatching(/^iVBOR/), mediaType: 'image/png', filename: 'image-1.png' }
        : {
            kind: 'file',
            file: { bytes: expect.stringMatching(/^iVBOR/), mimeType: 'image/png', name: 'image-1.png' },
          };
    const link =
      version === '1.0'
        ? { url: 'https://example.com/report.pdf', mediaType: 'application/pdf', filename: 'report.pdf' }
        : {
            kind: 'file',
            file: { uri: 'https://example.com/report.pdf', mimeType: 'application/pdf', name: 'report.pdf' },
          };
    const json =
      version === '1.0' ? { data: { passed: 12, failed: 0 } } : { kind: 'data', data: { passed: 12, failed: 0 } };
    expect(nonText).toEqual([image, link, json]);
    expect(events.at(-1)).toMatchObject({ kind: 'status', state: 'completed' });

    const id = events[0]!.result.id as string;
    const stored = (await call(tb, version, METHODS[version].get, { id })).result;
    const textOf = (p: Wire) => (version === '1.0' ? p.text : p.text);
    expect(stored.artifacts[0].parts).toEqual([
      version === '1.0'
        ? { text: 'Here is the screenshot, the report and the result.' }
        : { kind: 'text', text: 'Here is the screenshot, the report and the result.' },
      image,
      link,
      json,
      version === '1.0' ? { text: 'All green.' } : { kind: 'text', text: 'All green.' },
    ]);
    expect(stored.artifacts[0].parts.map(textOf).filter(Boolean).join('')).not.toContain('not included');
  });

  it('bad content is a note in the artifact — broken base64, a link of another scheme, an unknown block type; a file: link is passed on unread', async () => {
    const task = await send(version, 'bad-content');
    expect(task.status.state).toMatch(/completed|COMPLETED/);
    const text = (task.artifacts[0].parts as Wire[]).map((p) => p.text ?? '').join('');
    expect(text).toMatch(/^before/);
    expect(text).toContain('[file "image-1.png" (image/png) not included: its bytes are not valid base64]');
    expect(text).toContain('[file "x.bin" not included: links are passed on for http:, https:, file: only, not ftp:]');
    expect(text).toContain('[content of type "video" not included');
    expect(text).toMatch(/after$/);
    // A file: link is passed on as it is: the bridge never reads it (the file does not even exist).
    const links = (task.artifacts[0].parts as Wire[]).filter((p) => p.text === undefined);
    expect(links).toEqual([
      version === '1.0'
        ? { url: 'file:///nowhere/contactor-never-reads.txt', filename: 'local.txt' }
        : { kind: 'file', file: { uri: 'file:///nowhere/contactor-never-reads.txt', name: 'local.txt' } },
    ]);
  });

  it('the artifact cap counts decoded bytes: a file under it is kept whole, one over it is a note', async () => {
    // 2400 bytes are 3200 characters of base64: over the cap if the encoding were counted.
    const kept = await send(version, 'big-image 2400');
    const file = (kept.artifacts[0].parts as Wire[]).find((p) => (version === '1.0' ? p.raw : p.file?.bytes));
    const bytes = version === '1.0' ? file.raw : file.file.bytes;
    expect(Buffer.from(bytes, 'base64')).toHaveLength(2400);
    expect(kept.metadata.truncated).toBeUndefined();

    const dropped = await send(version, 'big-image 3500');
    const parts = dropped.artifacts[0].parts as Wire[];
    expect(parts.some((p) => p.raw !== undefined || p.file !== undefined)).toBe(false);
    expect(parts.map((p) => p.text).join('')).toContain(
      `[file "image-1.png" (image/png) not included: 3500 bytes would pass the task's ${CAP}-byte artifact cap]`,
    );
    expect(dropped.metadata.truncated).toEqual({ at: CAP, droppedBytes: 3500 });
  });
});

it('a reply of only a file is output: no "finished without any output" warning', async () => {
  const task = await send('0.3', 'big-image 10');
  expect(task.metadata.warning).toBeUndefined();
});

it('a reply of only a text resource is output too: no "finished without any output" warning', async () => {
  const task = await send('0.3', 'text-resource');
  expect(task.artifacts[0].parts).toEqual([{ kind: 'text', text: '# Report' }]);
  expect(task.metadata.warning).toBeUndefined();
});
