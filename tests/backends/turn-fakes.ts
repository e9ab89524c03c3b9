/** A Turn and a recording TurnReporter (a fake that implements the port) for backend tests. */
import type { Part } from '../../main/domain/task.js';
import type { Turn, TurnReporter } from '../../main/ports.js';

export function makeTurn(overrides: Partial<Turn> = {}): Turn {
  return {
    taskId: 'task-1',
    contextId: 'ctx-1',
    messageId: crypto.randomUUID(),
    agent: 'remote',
    text: 'hello',
    attachments: [],
    delegationDepth: 0,
    visitedAgents: ['remote'],
    followUp: false,
    signal: new AbortController().signal,
    ...overrides,
  };
}

export function recorder() {
  const texts: string[] = [];
  const receipts: Record<string, unknown>[] = [];
  const progress: { kind: string; text: string }[] = [];
  const parts: Part[] = [];
  const reporter: TurnReporter = {
    text: (chunk) => texts.push(chunk),
    content: (part) => parts.push(part),
    progress: (note) => progress.push(note),
    receipt: (facts) => receipts.push(facts),
    askPermission: () => Promise.reject(new Error('this backend never asks for permission')),
  };
  return {
    reporter,
    texts,
    parts,
    progress,
    text: () => texts.join(''),
    receipt: () => Object.assign({}, ...receipts) as Record<string, unknown>,
  };
}
