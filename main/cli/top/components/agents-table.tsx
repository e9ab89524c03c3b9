/** Per agent: how many of its tasks run, wait in its queue, or wait for an answer. */
import { Box, Text } from 'ink';
import { agentActivity } from '../../../domain/activity.js';
import { fit } from '../layout.js';
import type { TopState } from '../view-model.js';
import type { Palette } from './palette.js';

export function AgentsTable({ state, palette, maxRows }: { state: TopState; palette: Palette; maxRows: number }) {
  // Counted from the rows, so the live feed moves them without waiting for a snapshot.
  const agents = agentActivity(
    state.agents.map((a) => a.agent),
    state.rows,
  );
  const shown = agents.slice(0, Math.max(1, maxRows));
  return (
    <Box flexDirection="column">
      <Box>
        <Box width={18}>
          <Text bold>AGENT</Text>
        </Box>
        <Text bold> RUNNING WAITING QUESTIONS</Text>
      </Box>
      {shown.map((a) => (
        <Box key={a.agent}>
          <Box width={18}>
            <Text wrap="truncate-end">{fit(a.agent, 18)}</Text>
          </Box>
          <Text color={a.running ? palette.tone('running') : undefined}>{String(a.running).padStart(8)}</Text>
          <Text color={a.waiting ? palette.tone('waiting') : undefined}>{String(a.waiting).padStart(9)}</Text>
          <Text color={a.questions ? palette.tone('question') : undefined} bold={a.questions > 0}>
            {String(a.questions).padStart(11)}
          </Text>
        </Box>
      ))}
      {agents.length > shown.length ? <Text>… {agents.length - shown.length} more agents</Text> : null}
    </Box>
  );
}
