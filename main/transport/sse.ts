import type { Writable } from 'node:stream';

/** Buffered bytes past which a subscriber is too slow and is dropped; it can resume with Last-Event-ID. */
const MAX_BUFFERED_BYTES = 8 * 1024 * 1024;

export const SSE_HEADERS = {
  'Content-Type': 'text/event-stream; charset=utf-8',
  'Cache-Control': 'no-cache',
  Connection: 'keep-alive',
  'X-Accel-Buffering': 'no',
} as const;

/**
 * Writes one SSE event. Returns false when the subscriber cannot keep up and should be closed: memory
 * stays bounded whatever a slow reader does (back-pressure by disconnect, resume by cursor).
 */
export function writeSseEvent(
  out: Writable,
  data: unknown,
  opts: { id?: number | string; event?: string } = {},
): boolean {
  if (out.writableEnded || out.destroyed) return false;
  let frame = '';
  if (opts.event) frame += `event: ${opts.event}\n`;
  if (opts.id !== undefined) frame += `id: ${opts.id}\n`;
  frame += `data: ${JSON.stringify(data)}\n\n`;
  out.write(frame);
  return out.writableLength <= MAX_BUFFERED_BYTES;
}

export function parseLastEventId(header: string | undefined): number | undefined {
  if (!header || !/^\d+$/.test(header.trim())) return undefined;
  return Number(header.trim());
}
