/**
 * `contactor agents` fits the terminal as `contactor top` does (render/table.ts): on an 80-column terminal no
 * line is wider than 80 (it used to be ~170 and wrapped); piped, the full table is printed as before.
 */
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { agentLines } from '../../main/cli/commands/agents.js';
import { Output } from '../../main/cli/render/output.js';
import type { AgentSummary } from '../../main/schema/cli.js';

function agent(name: string, backend: string, inputRequired: boolean, description: string): AgentSummary {
  return {
    name,
    description,
    traits: { backend, streaming: backend === 'acp', inputRequired, interruptible: true, multiTurn: true, limits: '' },
    queue: { waiting: 2, running: 1, needsAnswer: 0 },
    url: `http://127.0.0.1:1/agents/${name}`,
    cardUrl: `http://127.0.0.1:1/agents/${name}/card`,
    backend,
  } as AgentSummary;
}

const AGENTS = [
  agent('claude', 'acp', true, 'Claude Code over ACP: reads and edits the workspace, runs commands when allowed'),
  agent('echo', 'subprocess_cli', false, 'Demo agent that echoes the request'),
];

/** An Output whose stdout is a terminal `columns` wide (or a pipe when undefined), with no colours. */
function outputOf(columns: number | undefined): Output {
  const stream = () => {
    const s = new Writable({ write: (_c, _e, done) => done() }) as unknown as NodeJS.WriteStream;
    if (columns !== undefined) Object.assign(s, { isTTY: true, columns });
    return s;
  };
  return new Output(false, { stdout: stream(), stderr: stream(), env: { NO_COLOR: '1' } });
}

const text = (out: Output) => agentLines(out, AGENTS).map((l) => l.raw);

describe('contactor agents on a terminal', () => {
  it('fits 80 columns: the description gives way, the queue is cut, the ASKS hint moves under the table', () => {
    expect(text(outputOf(80))).toEqual([
      'AGENT   BACKEND         REPLY      ASKS  INTERRUPTIBLE  QUEUE',
      'claude  acp             streamed   yes   yes            1 running, 2 waiting, 0…',
      'echo    subprocess_cli  one piece  no*   yes            1 running, 2 waiting, 0…',
      '* asks only with append_decision_contract: true in its config',
    ]);
  });

  it('a wide terminal keeps every column and the long hint, cutting only the description', () => {
    const lines = text(outputOf(150));
    expect(lines.every((l) => l.length <= 150)).toBe(true);
    expect(lines[2]).toMatch(/^echo +subprocess_cli +one piece +no \(add append_decision_contract: true\) +yes /);
    expect(lines[1]).toMatch(/ {2}Claude Code over ACP: r…$/);
  });

  it('piped (no terminal), the whole table is printed as before', () => {
    const lines = text(outputOf(undefined));
    expect(lines[1]).toMatch(
      / 1 running, 2 waiting, 0 to answer {2}Claude Code over ACP: reads and edits the workspace, runs c…$/,
    );
    expect(lines).toHaveLength(3);
  });
});
