import type { z } from 'zod';
import { RpcError, describeZodError } from './rpc-errors.js';

/** Params parsed once at the edge; a failure is -32602 naming each bad field. */
export function parseParams<S extends z.ZodType>(schema: S, params: unknown): z.infer<S> {
  const parsed = schema.safeParse(params ?? {});
  if (!parsed.success) throw new RpcError(-32602, describeZodError(parsed.error));
  return parsed.data;
}
