/**
 * An AgentBackend that answers in-process: no child process, no I/O, so a throughput run measures
 * the bridge (HTTP, JSON-RPC, dispatcher, SQLite) and nothing else. Replies `echo: <text>`.
 */
import type { AgentBackend, AgentTraits, Turn, TurnOutcome, TurnReporter } from '../../main/ports.js';

export class InProcessEchoBackend implements AgentBackend {
  readonly traits: AgentTraits = {
    backend: 'bench-echo',
    streaming: true,
    inputRequired: false,
    interruptible: false,
    multiTurn: false,
    limits: 'benchmark echo: answers in-process',
  };

  async run(turn: Turn, report: TurnReporter): Promise<TurnOutcome> {
    report.text(`echo: ${turn.text}`);
    return { kind: 'completed' };
  }

  async close(): Promise<void> {}
}
