/**
 * `contactor audit [-n N]`: the last entries of `<data_dir>/audit/audit.jsonl` (and the rotated files
 * before it when the current one holds fewer). Reads the file directly, so it works with the bridge down.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { AuditEntrySchema, type AuditEntry } from '../../schema/audit.js';
import type { Action } from '../context.js';
import { CliError, EXIT } from '../exit-codes.js';
import { dataDirOf } from '../settings.js';

export const AUDIT_FILE = path.join('audit', 'audit.jsonl');
/** The bridge keeps at most this many rotated files (audit.jsonl.1 ... .N); more are never read. */
const ROTATED_FILES = 9;

/** The last `count` entries, oldest first. Lines that are not entries (a torn last write) are skipped. */
export function readAuditTail(dataDir: string, count: number): AuditEntry[] {
  const file = path.join(dataDir, AUDIT_FILE);
  const entries: AuditEntry[] = [];
  for (let i = 0; i <= ROTATED_FILES && entries.length < count; i += 1) {
    const name = i === 0 ? file : `${file}.${i}`;
    if (!existsSync(name)) break;
    const lines = readFileSync(name, 'utf8').split('\n');
    for (let j = lines.length - 1; j >= 0 && entries.length < count; j -= 1) {
      const entry = parseLine(lines[j]!);
      if (entry) entries.push(entry);
    }
  }
  return entries.reverse();
}

/** One line a person reads: time, what happened, to which task, and the entry's other facts. */
export function formatAuditEntry(entry: AuditEntry): string {
  const { at, type, taskId, agent, ...rest } = entry;
  const subject = [agent, taskId].filter(Boolean).join(' ');
  const facts = Object.entries(rest)
    .filter(([key, value]) => key !== 'contextId' && value !== undefined && value !== '')
    .map(([key, value]) => `${key}=${typeof value === 'string' ? oneLine(value) : JSON.stringify(value)}`)
    .join(' ');
  return [at, type.padEnd(26), subject, facts].filter((part) => part !== '').join('  ');
}

export const auditCommand: Action<[{ lines?: string }]> = async (cli, options) => {
  const count = Number(options.lines ?? '20');
  if (!Number.isInteger(count) || count < 1)
    throw new CliError(`-n needs a whole number of entries (1 or more), not "${options.lines}"`, EXIT.usage);
  const dataDir = dataDirOf(cli.opts, cli.env);
  const entries = readAuditTail(dataDir, count);
  if (cli.json) {
    cli.out.doc({ file: path.join(dataDir, AUDIT_FILE), entries });
    return EXIT.completed;
  }
  if (entries.length === 0) cli.out.note(`no audit entries yet in ${path.join(dataDir, AUDIT_FILE)}`);
  for (const entry of entries) cli.out.line(formatAuditEntry(entry));
  return EXIT.completed;
};

function parseLine(line: string): AuditEntry | undefined {
  if (line.trim() === '') return undefined;
  try {
    const parsed = AuditEntrySchema.safeParse(JSON.parse(line));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/**
 * One line: runs of spaces, tabs and line feeds become one space; anything else (a CR, a separator, a BOM) is
 * left for the quoting and the output layer to show (SECURITY.md#what-a-person-reads).
 */
function oneLine(text: string): string {
  const flat = text.replace(/[ \t\n]+/g, ' ').trim();
  return /\s|=/.test(flat) ? JSON.stringify(flat) : flat;
}
