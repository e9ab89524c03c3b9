/**
 * An open question, with its options and the exact command that answers it. The agent's words arrive as
 * values of `shown` (screen-text.ts); the command a permission would run and its title stay on one line,
 * their line breaks shown, so nothing of what would run can be pushed out of sight.
 */
import { textOf, type Part } from '../../domain/task.js';
import type { CliTask } from '../../schema/cli.js';
import type { Output } from './output.js';
import { joined, oneLine, shown, type ScreenText } from './screen-text.js';

type Palette = Output['c'];

export function questionLines(task: CliTask, c: Palette, now = Date.now()): ScreenText[] {
  const pending = task.metadata.pending;
  const agent = task.metadata.agent;
  const answer = (what: string) => shown`  answer: ${c.bold(`contactor answer ${task.id} ${what}`)}`;
  if (!pending) {
    const text = task.status.message ? textOf(task.status.message.parts as Part[]) : '(no question text)';
    return [
      shown`${c.yellow(`${agent} is waiting for input`)} (task ${task.id}):`,
      shown`${indent(text)}`,
      answer('<your answer>'),
    ];
  }
  const expires = `expires ${relative(pending.expiresAt, now)}`;
  switch (pending.kind) {
    case 'decision':
      return [
        shown`${c.yellow(`${agent} asks`)} (task ${task.id}, ${expires}):`,
        shown`${indent(pending.question)}`,
        ...pending.options.map(
          (o, i) =>
            shown`    ${i + 1}. ${oneLine(o)}${o === pending.recommend ? c.green(`  ← recommended: ${pending.reason}`) : ''}`,
        ),
        answer('<number or text>'),
      ];
    case 'permission': {
      const input = pending.toolCall.rawInput;
      const command =
        typeof input === 'object' && input && 'command' in input ? (input as { command: unknown }).command : input;
      const paths = (pending.toolCall.locations ?? []).map((l) => oneLine(l.path));
      const kind = pending.toolCall.kind;
      return [
        shown`${c.yellow(`${agent} asks permission`)} (task ${task.id}, ${expires}): ${oneLine(pending.toolCall.title)}${kind ? shown` [${oneLine(kind)}]` : ''}`,
        ...(command !== undefined
          ? [shown`    command: ${oneLine(typeof command === 'string' ? command : JSON.stringify(command))}`]
          : []),
        ...(paths.length ? [shown`    paths: ${joined(paths, ', ')}`] : []),
        shown`    options: ${joined(
          pending.options.map((o) => shown`${oneLine(o.name)} (${oneLine(o.optionId)})`),
          ', ',
        )}`,
        answer('yes|no'),
      ];
    }
    default: {
      const never: never = pending;
      return never;
    }
  }
}

function indent(text: string): string {
  return text
    .split('\n')
    .map((l) => `  ${l}`)
    .join('\n');
}

/** "in 29m", "3m ago": expiry at a glance. */
export function relative(iso: string, now = Date.now()): string {
  const ms = Date.parse(iso) - now;
  if (Number.isNaN(ms)) return iso;
  const abs = Math.abs(ms);
  const text =
    abs < 60_000
      ? `${Math.round(abs / 1000)}s`
      : abs < 3_600_000
        ? `${Math.round(abs / 60_000)}m`
        : `${(abs / 3_600_000).toFixed(1)}h`;
  return ms >= 0 ? `in ${text}` : `${text} ago`;
}
