/**
 * `<data_dir>/bridge.json`: how a CLI (or the tray, or an agent) finds the running bridge
 * (docs/contract.md#discovery-file). Written atomically by the bridge with user-only permissions.
 */
import { z } from 'zod';

export const DiscoverySchema = z.object({
  url: z.string().url(),
  port: z.number().int().min(1).max(65535),
  pid: z.number().int().positive(),
  version: z.string(),
  startedAt: z.string(),
  token: z.string().optional(),
  /** The data dir this bridge owns (so `contactor down` can check it stops the right one). */
  dataDir: z.string().optional(),
});
export type Discovery = z.infer<typeof DiscoverySchema>;

export const HealthSchema = z.object({
  status: z.literal('ok'),
  name: z.literal('contactor'),
  version: z.string(),
  uptimeS: z.number(),
  agents: z.number().int(),
  pid: z.number().int(),
});
export type Health = z.infer<typeof HealthSchema>;
