/**
 * The followed task: who asked whom for what, its state, what it reported doing (tool calls, plans), the
 * end of its reply as it streams, its open question with the numbered options, and the tasks it delegated.
 */
import { Box, Text } from 'ink';
import { optionLines, questionTitle } from '../answer-check.js';
import { callerChain, elapsed, fit, plain, stateLabel, toneOf } from '../layout.js';
import type { TopState } from '../view-model.js';
import type { Palette } from './palette.js';

export function DetailPane(props: { state: TopState; palette: Palette; width: number; height: number; now: number }) {
  const { state, palette, width, now } = props;
  const detail = state.detail!;
  const row = state.rows.find((r) => r.taskId === detail.taskId);
  const pending = row?.state === 'input-required' ? detail.pending : undefined;
  const options = pending ? optionLines(pending) : [];
  const notes = detail.notes.slice(-3);
  const children = detail.children.slice(0, 3);
  // What is left of the height after the fixed lines goes to the reply's last lines.
  const fixed =
    3 +
    (notes.length ? notes.length + 1 : 0) +
    (pending ? options.length + 2 : 0) +
    (children.length ? children.length + 1 : 0);
  const replyLines = tailLines(detail.text, width, Math.max(1, props.height - fixed));
  return (
    <Box flexDirection="column">
      <Text wrap="truncate-end" bold>
        task {detail.taskId} · {row ? callerChain(row) : '…'}
      </Text>
      <Text wrap="truncate-end">
        <Text color={row ? palette.tone(toneOf(row.state)) : undefined}>{row ? stateLabel(row) : '…'}</Text>
        {row ? ` for ${elapsed(row.since, now)}` : ''}
        {detail.loaded ? '' : ' · loading…'}
      </Text>
      <Text wrap="truncate-end">brief: {fit(detail.brief, width - 7)}</Text>
      {notes.length ? <Text bold>what it did</Text> : null}
      {notes.map((n, i) => (
        <Text key={`n${i}`} wrap="truncate-end" dimColor={palette.dim}>
          {'  '}
          {fit(n, width - 2)}
        </Text>
      ))}
      <Text bold>reply</Text>
      {replyLines.length === 0 ? <Text dimColor={palette.dim}> (nothing yet)</Text> : null}
      {replyLines.map((line, i) => (
        <Text key={`r${i}`} wrap="truncate-end">
          {line}
        </Text>
      ))}
      {pending ? (
        <>
          <Text bold color={palette.tone('question')} wrap="truncate-end">
            question: {fit(questionTitle(pending), width - 10)}
          </Text>
          {options.map((o) => (
            <Text key={o} wrap="truncate-end">
              {'  '}
              {fit(o, width - 2)}
            </Text>
          ))}
          <Text dimColor={palette.dim}>a: answer (type a number or text, then Enter)</Text>
        </>
      ) : null}
      {children.length ? <Text bold>delegated</Text> : null}
      {children.map((c) => (
        <Text key={c.taskId} wrap="truncate-end">
          {'  '}
          {fit(`${stateLabel(c)} · ${callerChain(c)} · ${c.lastLine ?? c.brief}`, width - 2)}
        </Text>
      ))}
    </Box>
  );
}

/** The last `height` screen lines of `text` at `width` columns, controls shown as marks (layout.ts plain). */
export function tailLines(text: string, width: number, height: number): string[] {
  const w = Math.max(1, width);
  const out: string[] = [];
  const lines = plain(text).replace(/\n+$/, '').split('\n');
  for (let i = lines.length - 1; i >= 0 && out.length < height; i -= 1) {
    const line = plain(lines[i]!).replace(/\s+$/, '');
    const pieces: string[] = [];
    for (let at = 0; at < line.length; at += w) pieces.push(line.slice(at, at + w));
    if (pieces.length === 0) pieces.push('');
    out.unshift(...pieces.slice(-(height - out.length)));
  }
  return text === '' ? [] : out;
}
