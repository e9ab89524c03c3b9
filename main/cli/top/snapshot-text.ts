/** `contactor top` into a pipe or a file: the agents and the task table once, as plain text lines. */
import type { ActivitySnapshot } from '../../schema/activity.js';
import type { Shown } from '../render/screen-text.js';
import { table } from '../render/table.js';
import { callerChain, elapsed, fit, stateLabel } from './layout.js';

export function snapshotLines(snap: ActivitySnapshot, now: number): Shown[] {
  const s = snap.summary;
  const lines: Shown[] = [
    `${s.running} running · ${s.waiting} waiting · ${s.needsYou} need you · ${s.finished} finished${snap.truncated ? ' (newest only)' : ''}`,
    '',
    ...table(
      ['AGENT', 'RUNNING', 'WAITING', 'QUESTIONS'],
      snap.agents.map((a) => [fit(a.agent, 40), String(a.running), String(a.waiting), String(a.questions)]),
    ),
    '',
  ];
  if (snap.rows.length === 0) return [...lines, 'no tasks yet'];
  return [
    ...lines,
    ...table(
      ['TASK', 'STATE', 'FOR', 'CALLER → AGENT', 'BRIEF / LAST LINE'],
      snap.rows.map((r) => [
        r.taskId,
        stateLabel(r),
        elapsed(r.since, now),
        fit(callerChain(r), 60),
        fit(r.question ? `? ${r.question.title}` : (r.lastLine ?? r.brief), 80),
      ]),
    ),
  ];
}
