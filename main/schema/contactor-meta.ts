/**
 * The per-task values a bridge puts in an ACP prompt's `_meta.contactor` (docs/contract.md#agent-environment),
 * as `contactor acp` reads them when a bridge runs it as an agent: the chain it passes on one hop deeper.
 */
import { z } from 'zod';

export const ContactorMetaSchema = z.object({
  contactor: z.object({
    delegationDepth: z.number().int().min(0).optional(),
    visitedAgents: z.array(z.string()).optional(),
  }),
});
