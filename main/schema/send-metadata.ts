/**
 * Bridge facts a standard A2A client may put in a send's `metadata` (or `message.metadata`),
 * docs/contract.md#sending-a-message: the agent and the delegation fields. Unknown members pass through (A2A metadata
 * is open).
 */
import { z } from 'zod';

/** POSIX, drive-letter or UNC: relative paths would resolve against whatever cwd the agent has. */
export const ABSOLUTE_PATH = /^(\/|[A-Za-z]:[\\/]|\\\\)/;

export const SendMetadataSchema = z.looseObject({
  agent: z.string().min(1).optional(),
  delegationDepth: z.number().int().min(0, 'delegationDepth must be 0 or more').optional(),
  visitedAgents: z.array(z.string()).optional(),
  parentTaskId: z.string().optional(),
  callerAgent: z.string().optional(),
  cwd: z
    .string()
    .regex(ABSOLUTE_PATH, 'cwd must be an absolute path (/home/me/p, C:\\Users\\me\\p or \\\\server\\share)')
    .optional(),
});
export type SendMetadata = z.infer<typeof SendMetadataSchema>;
