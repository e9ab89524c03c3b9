/** The tasks, newest first: state, time in that state, who asked whom, and the last line of output. */
import { Box, Text } from 'ink';
import { columnsFor, headingCells, rowCells, toneOf } from '../layout.js';
import type { TopState } from '../view-model.js';
import type { Palette } from './palette.js';

export function TaskTable(props: { state: TopState; palette: Palette; width: number; height: number; now: number }) {
  const { state, palette, width, now } = props;
  const cols = columnsFor(width);
  const visible = Math.max(1, props.height - 1);
  const at = Math.max(
    0,
    state.rows.findIndex((r) => r.taskId === state.selectedId),
  );
  // Keeps the selected task in view, near the middle once the list is longer than the screen.
  const start = Math.max(0, Math.min(at - Math.floor(visible / 2), state.rows.length - visible));
  const rows = state.rows.slice(start, start + visible);
  return (
    <Box flexDirection="column">
      <Text bold wrap="truncate-end">
        {'  '}
        {headingCells(cols)}
      </Text>
      {!state.loaded ? <Text>loading…</Text> : null}
      {state.loaded && state.rows.length === 0 ? (
        <Text>{'no tasks yet: `contactor send <agent> "<brief>"` starts one'}</Text>
      ) : null}
      {rows.map((row) => {
        const cells = rowCells(row, cols, now);
        const selected = row.taskId === state.selectedId;
        return (
          <Text key={row.taskId} inverse={selected} wrap="truncate-end">
            {selected ? '› ' : '  '}
            <Text color={palette.tone(toneOf(row.state))} bold={row.state === 'input-required'}>
              {cells.state}
            </Text>{' '}
            {cells.rest}
          </Text>
        );
      })}
    </Box>
  );
}
