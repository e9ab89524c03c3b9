/** The first line: where the bridge is, whether the feed is live, and the running / waiting / needs-you / finished counts. */
import { Text } from 'ink';
import { activitySummary } from '../../../domain/activity.js';
import type { TopState } from '../view-model.js';
import type { Palette } from './palette.js';

export function Header({ state, url, palette }: { state: TopState; url: string; palette: Palette }) {
  const s = activitySummary(state.rows);
  const link =
    state.connection === 'live' ? 'live' : state.connection === 'connecting' ? 'connecting…' : 'reconnecting…';
  return (
    <Text wrap="truncate-end">
      <Text bold>contactor top</Text> {url}{' '}
      <Text color={state.connection === 'live' ? palette.tone('running') : palette.tone('question')}>[{link}]</Text>
      {'  '}
      {s.running} running · {s.waiting} waiting · {s.needsYou} need you · {s.finished} finished
      {state.truncated ? ' (newest only)' : ''}
    </Text>
  );
}
