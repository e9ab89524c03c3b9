/**
 * A bridge task (the v0.3 JSON every method answers with) as a tool reads it: state, the reply text, the
 * open question with its options, and what to do next, in words a model can act on
 * (docs/contract.md#mcp-tools). The bridge's task is parsed here, once, at the edge of the front door.
 */
import { z } from 'zod';

const PartSchema = z.looseObject({ kind: z.string().optional(), text: z.string().optional() });
const PendingSchema = z.union([
  z.looseObject({
    kind: z.literal('permission'),
    toolCall: z.looseObject({ title: z.string() }),
    options: z.array(z.looseObject({ optionId: z.string(), name: z.string() })),
  }),
  z.looseObject({
    kind: z.literal('decision'),
    question: z.string(),
    options: z.array(z.string()),
    recommend: z.string().optional(),
    reason: z.string().optional(),
  }),
]);

export const BridgeTaskSchema = z.looseObject({
  id: z.string(),
  contextId: z.string().optional(),
  status: z.looseObject({
    state: z.string(),
    message: z.looseObject({ parts: z.array(PartSchema).optional() }).optional(),
  }),
  artifacts: z.array(z.looseObject({ parts: z.array(PartSchema).optional() })).optional(),
  metadata: z.looseObject({ agent: z.string().optional(), pending: z.unknown().optional() }).optional(),
});
export type BridgeTask = z.infer<typeof BridgeTaskSchema>;

/** The question a task waits on, as every tool shows it. */
export const QuestionSchema = z.object({
  kind: z
    .enum(['permission', 'decision'])
    .describe('permission: the agent asks to run a tool; decision: it asks you to choose'),
  text: z.string().describe('the question in words'),
  options: z
    .array(z.object({ id: z.string(), label: z.string() }))
    .describe('answer_question takes one of these ids (or, for a decision, free text)'),
  recommend: z.string().optional(),
});
export type Question = z.infer<typeof QuestionSchema>;

/** What send_task, get_task, answer_question and cancel_task return (their outputSchema). */
export const TaskResultShape = {
  taskId: z.string().describe('the contactor task id: get_task, answer_question and cancel_task take it'),
  contextId: z
    .string()
    .optional()
    .describe('pass it as contextId to send_task for a follow-up in the same conversation'),
  agent: z.string().optional(),
  state: z.string().describe('submitted, working, input-required, completed, failed, canceled or rejected'),
  done: z.boolean().describe('true when the task is finished (completed, failed, canceled or rejected)'),
  reply: z.string().optional().describe("the agent's reply text (completed), or why it stopped (failed, rejected)"),
  question: QuestionSchema.optional().describe('set while the agent waits for an answer (state input-required)'),
  next: z.string().describe('what to do now'),
};
export type TaskResult = z.infer<z.ZodObject<typeof TaskResultShape>>;

const TERMINAL = new Set(['completed', 'failed', 'canceled', 'rejected']);

export function isTerminal(state: string): boolean {
  return TERMINAL.has(state);
}

export function taskResult(raw: unknown): TaskResult {
  const task = BridgeTaskSchema.parse(raw);
  const state = task.status.state;
  const question = questionOf(task);
  const reply = replyOf(task, state);
  const done = isTerminal(state);
  return {
    taskId: task.id,
    ...(task.contextId ? { contextId: task.contextId } : {}),
    ...(task.metadata?.agent ? { agent: task.metadata.agent } : {}),
    state,
    done,
    ...(reply ? { reply } : {}),
    ...(question ? { question } : {}),
    next: nextStep(task.id, state, question),
  };
}

function questionOf(task: BridgeTask): Question | undefined {
  if (task.status.state !== 'input-required') return undefined;
  const pending = PendingSchema.safeParse(task.metadata?.pending);
  if (!pending.success) return undefined;
  const p = pending.data;
  if (p.kind === 'permission') {
    return {
      kind: 'permission',
      text: `${task.metadata?.agent ?? 'the agent'} asks permission: ${p.toolCall.title}`,
      options: p.options.map((o) => ({ id: o.optionId, label: o.name })),
    };
  }
  return {
    kind: 'decision',
    text: p.question,
    options: p.options.map((o) => ({ id: o, label: o })),
    ...(p.recommend ? { recommend: p.recommend } : {}),
  };
}

function textOf(parts: { kind?: string | undefined; text?: string | undefined }[] | undefined): string {
  return (parts ?? [])
    .filter((p) => typeof p.text === 'string')
    .map((p) => p.text)
    .join('');
}

function replyOf(task: BridgeTask, state: string): string {
  const artifacts = (task.artifacts ?? []).map((a) => textOf(a.parts)).join('\n');
  if (state === 'completed') return artifacts || textOf(task.status.message?.parts);
  if (state === 'input-required') return artifacts;
  return [artifacts, textOf(task.status.message?.parts)].filter((t) => t !== '').join('\n');
}

function nextStep(taskId: string, state: string, question: Question | undefined): string {
  if (question) {
    const ids = question.options.map((o) => o.id).join(', ');
    return `the agent waits for an answer: call answer_question with taskId ${taskId} and one of: ${ids}`;
  }
  if (state === 'completed') return 'done: read the reply (it is unreviewed work: check it before relying on it)';
  if (isTerminal(state)) return `the task ended ${state}; send_task again to retry`;
  return `still running: call get_task with taskId ${taskId} (wait: true waits for the next stop), or cancel_task`;
}

/** The text beside the structured content: the same facts, for clients that show text only. */
export function taskText(result: TaskResult): string {
  const head = `task ${result.taskId}${result.agent ? ` (${result.agent})` : ''}: ${result.state}`;
  const lines = [head];
  if (result.reply) lines.push('', result.reply);
  if (result.question) {
    lines.push('', `question (${result.question.kind}): ${result.question.text}`);
    for (const o of result.question.options) lines.push(`- ${o.id}${o.label !== o.id ? `: ${o.label}` : ''}`);
    if (result.question.recommend) lines.push(`recommended: ${result.question.recommend}`);
  }
  lines.push('', `next: ${result.next}`);
  if (result.contextId) lines.push(`contextId: ${result.contextId}`);
  return lines.join('\n');
}
