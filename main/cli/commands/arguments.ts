/** Small parsers for flags and stdin, shared by the verbs. */
import { InvalidArgumentError } from 'commander';

export function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

export function parseSeconds(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new InvalidArgumentError('give a number of seconds above 0');
  return n;
}

export function parseCount(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 100) throw new InvalidArgumentError('give a whole number from 1 to 100');
  return n;
}

export async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
