/**
 * A task's stream as ACP `session/update`s (docs/contract.md#acp): reply text as agent message chunks, files
 * as images, embedded resources or resource links, and the progress notes the bridge streams (thoughts, tool
 * calls and their updates, plans) as the ACP updates they came from. Everything else on the stream (states,
 * the task snapshot) is the prompt's business, not an update.
 */
import type { ContentBlock, SessionUpdate, ToolCallStatus, ToolKind } from '@agentclientprotocol/sdk';
import type { Part } from '../../domain/task.js';
import type { CliTask, StreamResult } from '../../schema/cli.js';

const TOOL_KINDS: readonly ToolKind[] = [
  'read',
  'edit',
  'delete',
  'move',
  'search',
  'execute',
  'think',
  'fetch',
  'switch_mode',
  'other',
];
const TOOL_STATUSES: readonly ToolCallStatus[] = ['pending', 'in_progress', 'completed', 'failed'];
const PLAN_STATUSES = ['pending', 'in_progress', 'completed'] as const;
const PRIORITIES = ['high', 'medium', 'low'] as const;

export function updatesOf(result: StreamResult): SessionUpdate[] {
  if (result.kind === 'artifact-update') {
    return (result.artifact.parts as Part[]).flatMap((part) => {
      const content = contentOf(part);
      return content ? [{ sessionUpdate: 'agent_message_chunk' as const, content }] : [];
    });
  }
  if (result.kind === 'status-update') {
    const note = progressOf(result.metadata);
    return note ? noteUpdates(note) : [];
  }
  return [];
}

/** A stored conversation as updates, oldest task first: each request, then the replies its turns gave. */
export function historyUpdates(tasks: readonly CliTask[]): SessionUpdate[] {
  return tasks.flatMap((task) => {
    const asked = (task.history ?? [])
      .filter((m) => m.role === 'user')
      .flatMap((m) => (m.parts as Part[]).map(contentOf))
      .filter((c): c is ContentBlock => c !== undefined)
      .map((content) => ({ sessionUpdate: 'user_message_chunk' as const, content }));
    const replied = (task.artifacts ?? [])
      .flatMap((a) => (a.parts as Part[]).map(contentOf))
      .filter((c): c is ContentBlock => c !== undefined)
      .map((content) => ({ sessionUpdate: 'agent_message_chunk' as const, content }));
    return [...asked, ...replied];
  });
}

export function contentOf(part: Part): ContentBlock | undefined {
  switch (part.kind) {
    case 'text':
      return part.text === '' ? undefined : { type: 'text', text: part.text };
    case 'data':
      return {
        type: 'resource',
        resource: { uri: 'contactor:data', mimeType: 'application/json', text: JSON.stringify(part.data) },
      };
    case 'file': {
      const { bytes, uri, mimeType, name } = part.file;
      const label = name ?? 'file';
      if (bytes !== undefined) {
        if (mimeType?.startsWith('image/')) return { type: 'image', data: bytes, mimeType };
        return {
          type: 'resource',
          resource: {
            uri: `contactor:file/${encodeURIComponent(label)}`,
            blob: bytes,
            ...(mimeType ? { mimeType } : {}),
          },
        };
      }
      if (uri !== undefined) return { type: 'resource_link', uri, name: label, ...(mimeType ? { mimeType } : {}) };
      return undefined;
    }
    default:
      return undefined;
  }
}

interface Note {
  kind: string;
  text: string;
  data?: Record<string, unknown>;
}

function progressOf(metadata: Record<string, unknown> | undefined): Note | undefined {
  if (metadata?.event !== 'progress') return undefined;
  const progress = metadata.progress as { kind?: unknown; text?: unknown; data?: unknown } | undefined;
  if (typeof progress?.kind !== 'string' || typeof progress.text !== 'string') return undefined;
  const data =
    progress.data && typeof progress.data === 'object' ? (progress.data as Record<string, unknown>) : undefined;
  return { kind: progress.kind, text: progress.text, ...(data ? { data } : {}) };
}

function noteUpdates(note: Note): SessionUpdate[] {
  switch (note.kind) {
    case 'thought':
      return [{ sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text: note.text } }];
    case 'tool_call':
    case 'tool_call_update': {
      const d = note.data ?? {};
      if (typeof d.toolCallId !== 'string') return [];
      const kind = oneOf(TOOL_KINDS, d.kind);
      const status = oneOf(TOOL_STATUSES, d.status);
      const locations = Array.isArray(d.locations)
        ? (d.locations as { path?: unknown; line?: unknown }[])
            .filter((l) => typeof l.path === 'string')
            .map((l) => ({ path: l.path as string, ...(typeof l.line === 'number' ? { line: l.line } : {}) }))
        : undefined;
      const fields = {
        toolCallId: d.toolCallId,
        ...(kind ? { kind } : {}),
        ...(status ? { status } : {}),
        ...(locations?.length ? { locations } : {}),
      };
      const title = typeof d.title === 'string' ? d.title : note.text;
      return note.kind === 'tool_call'
        ? [{ sessionUpdate: 'tool_call', title, ...fields }]
        : [{ sessionUpdate: 'tool_call_update', title, ...fields }];
    }
    case 'plan': {
      const entries = Array.isArray(note.data?.entries) ? (note.data.entries as Record<string, unknown>[]) : [];
      return [
        {
          sessionUpdate: 'plan',
          entries: entries
            .filter((e) => typeof e.content === 'string')
            .map((e) => ({
              content: e.content as string,
              priority: oneOf(PRIORITIES, e.priority) ?? 'medium',
              status: oneOf(PLAN_STATUSES, e.status) ?? 'pending',
            })),
        },
      ];
    }
    default:
      return [];
  }
}

function oneOf<T extends string>(allowed: readonly T[], value: unknown): T | undefined {
  return typeof value === 'string' && (allowed as readonly string[]).includes(value) ? (value as T) : undefined;
}
