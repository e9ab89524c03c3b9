/** The answer line being typed, the cancel question, or the last action's outcome; and the keys. */
import { Box, Text } from 'ink';
import { plain } from '../layout.js';
import type { TopState } from '../view-model.js';
import type { Palette } from './palette.js';

export function PromptLine({ state, palette }: { state: TopState; palette: Palette }) {
  const prompt = state.prompt;
  if (prompt?.kind === 'answer') {
    return (
      <Box flexDirection="column">
        <Text wrap="truncate-end">
          <Text bold color={palette.tone('question')}>
            answer ›{' '}
          </Text>
          {plain(prompt.input)}
          <Text inverse> </Text>
          <Text dimColor={palette.dim}> Enter: send · Esc: back</Text>
        </Text>
        {/* The bridge's refusal can quote the agent's words (a question's options): marked like every cell. */}
        {prompt.error ? <Text color={palette.tone('failed')}>{plain(prompt.error)}</Text> : null}
      </Box>
    );
  }
  if (prompt?.kind === 'cancel') {
    return (
      <Text bold color={palette.tone('failed')} wrap="truncate-end">
        cancel task {prompt.taskId}? y: cancel it · any other key: keep it running
      </Text>
    );
  }
  if (state.flash) {
    return (
      <Text color={state.flash.bad ? palette.tone('failed') : undefined} wrap="truncate-end">
        {plain(state.flash.text)}
      </Text>
    );
  }
  return <Text> </Text>;
}

export function KeysLine({ state, keys }: { state: TopState; keys: boolean }) {
  if (!keys) return <Text wrap="truncate-end">keys need a terminal on stdin; Ctrl+C quits</Text>;
  const text = state.detail
    ? 'esc back · a answer · c cancel · r refresh · q quit'
    : '↑↓/jk select · enter follow · a answer · c cancel · r refresh · q quit';
  return <Text wrap="truncate-end">{text}</Text>;
}
