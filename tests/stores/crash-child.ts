/**
 * The parent side of the SIGKILL crash tests: starts a writer child (crash-writer.ts, crash-streamer.ts),
 * collects the lines it prints (each one printed after its write was durable) and kills it with SIGKILL
 * once `killAfter` lines have arrived.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export interface KilledWriter {
  /** Every line the child printed before it died. */
  lines: string[];
  /** How the child ended: 'SIGKILL' unless it exited on its own. */
  signal: NodeJS.Signals | null;
  stderr: string;
}

export async function runUntilKilled(writer: string, args: string[], killAfter: number): Promise<KilledWriter> {
  const file = fileURLToPath(new URL(writer, import.meta.url));
  const child = spawn(process.execPath, ['--import', 'tsx', file, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: string[] = [];
  let stderr = '';
  let buffered = '';
  child.stderr.on('data', (data: Buffer) => (stderr += data.toString()));
  const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, signal) => resolve(signal)));
  child.stdout.on('data', (data: Buffer) => {
    buffered += data.toString();
    const complete = buffered.split('\n');
    buffered = complete.pop() ?? '';
    lines.push(...complete);
    if (lines.length >= killAfter) child.kill('SIGKILL');
  });
  return { lines, signal: await exited, stderr };
}
