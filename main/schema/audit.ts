/**
 * One line of `<data_dir>/audit/audit.jsonl`. Readers (`contactor audit`) accept fields they do not know,
 * so a newer bridge's entries still show in an older CLI.
 */
import { z } from 'zod';

export const AUDIT_ENTRY_TYPES = [
  'task.created',
  'task.input-required',
  'task.answered',
  'task.auto-decided',
  'task.expired',
  'task.withdrawn',
  'task.auth-required',
  'task.completed',
  'task.canceled',
  'task.failed',
  'task.rejected',
  'request.refused',
  'request.refused-suppressed',
] as const;
export type AuditEntryType = (typeof AUDIT_ENTRY_TYPES)[number];

export const AuditEntrySchema = z.looseObject({
  at: z.string(),
  type: z.string(),
  taskId: z.string().optional(),
  agent: z.string().optional(),
});
export type AuditEntry = z.infer<typeof AuditEntrySchema>;
