/**
 * What bin/contactor.js sends the CLI it relaunched, over the IPC channel: one message per signal it got,
 * `{ contactorSignal: 'SIGINT' }` (main/cli/launcher-signals.ts). Anything else on the channel is not the
 * launcher's.
 */
import { z } from 'zod';

export const ForwardedSignalSchema = z.strictObject({ contactorSignal: z.enum(['SIGINT', 'SIGTERM', 'SIGHUP']) });
