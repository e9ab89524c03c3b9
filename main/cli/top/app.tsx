/** The `contactor top` screen: renders the controller's state to the terminal's size and passes keys to it. */
import { Box, useInput, useStdin, useWindowSize } from 'ink';
import { useEffect, useState, useSyncExternalStore } from 'react';
import { AgentsTable } from './components/agents-table.js';
import { DetailPane } from './components/detail-pane.js';
import { Header } from './components/header.js';
import type { Palette } from './components/palette.js';
import { KeysLine, PromptLine } from './components/prompt-line.js';
import { TaskTable } from './components/task-table.js';
import type { TopController } from './controller.js';

/** Elapsed times tick once a second; nothing else redraws without a change. */
const CLOCK_MS = 1000;

export function TopApp({ controller, url, palette }: { controller: TopController; url: string; palette: Palette }) {
  const state = useSyncExternalStore(controller.subscribe, controller.getState);
  const { columns, rows } = useWindowSize();
  const { isRawModeSupported } = useStdin();
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), CLOCK_MS);
    return () => clearInterval(timer);
  }, []);
  useInput((input, key) => controller.key(input, key), { isActive: isRawModeSupported });
  const width = Math.max(20, columns);
  // One line for the header, two under the table (prompt or outcome, keys), one spare: Ink scrolls the
  // whole frame when it is as tall as the terminal.
  const body = Math.max(3, rows - 4 - (state.prompt?.kind === 'answer' && state.prompt.error ? 1 : 0));
  const agentRows = state.detail ? 0 : Math.min(state.agents.length, Math.max(1, Math.floor(body / 4)));
  const agentsHeight = state.detail ? 0 : agentRows + 1 + (state.agents.length > agentRows ? 1 : 0);
  return (
    <Box flexDirection="column" width={width}>
      <Header state={state} url={url} palette={palette} />
      {state.detail ? (
        <DetailPane state={state} palette={palette} width={width} height={body} now={now} />
      ) : (
        <>
          <AgentsTable state={state} palette={palette} maxRows={agentRows} />
          <TaskTable
            state={state}
            palette={palette}
            width={width}
            height={Math.max(2, body - agentsHeight)}
            now={now}
          />
        </>
      )}
      <PromptLine state={state} palette={palette} />
      <KeysLine state={state} keys={isRawModeSupported} />
    </Box>
  );
}
