/**
 * The keys config.yaml allows at a place in the file, read from the one config schema (schema/config.ts):
 * what an unknown key is compared with to suggest the key it most likely meant. An agent's keys are those
 * of its `kind`; with an unknown kind, those of every kind.
 */
import { BridgeConfigSchema } from '../schema/config.js';

type Def = {
  type: string;
  innerType?: Schema;
  shape?: Record<string, Schema>;
  element?: Schema;
  valueType?: Schema;
  options?: Schema[];
};
type Schema = { _zod: { def: Def } };

/** The schema without its `.default()` / `.optional()` wrappers. */
function bare(schema: Schema): Schema {
  let at = schema;
  while (at._zod.def.innerType && ['default', 'optional', 'nullable', 'prefault'].includes(at._zod.def.type)) {
    at = at._zod.def.innerType;
  }
  return at;
}

/** The object schema at `path` in the config, choosing a union's member by the value's `kind`. */
function objectsAt(schema: Schema, path: readonly (string | number)[], value: unknown): Schema[] {
  const here = bare(schema);
  const def = here._zod.def;
  if (def.type === 'union' && def.options) {
    const kind = (value as { kind?: unknown } | undefined)?.kind;
    const chosen = def.options.filter((o) => {
      const literal = bare(o)._zod.def.shape?.kind as unknown as
        { safeParse(v: unknown): { success: boolean } } | undefined;
      return literal?.safeParse(kind).success === true;
    });
    return (chosen.length > 0 ? chosen : def.options).flatMap((o) => objectsAt(o, path, value));
  }
  if (path.length === 0) return def.type === 'object' ? [here] : [];
  const [step, ...rest] = path;
  const next = (value as Record<string | number, unknown> | undefined)?.[step!];
  if (def.type === 'object' && def.shape && typeof step === 'string' && def.shape[step])
    return objectsAt(def.shape[step], rest, next);
  if (def.type === 'array' && def.element) return objectsAt(def.element, rest, next);
  if (def.type === 'record' && def.valueType) return objectsAt(def.valueType, rest, next);
  return [];
}

/** The keys allowed in the object at `path` of the parsed config `value`. */
export function allowedKeysAt(path: readonly (string | number)[], value: unknown): string[] {
  const keys = objectsAt(BridgeConfigSchema as unknown as Schema, path, value).flatMap((o) =>
    Object.keys(o._zod.def.shape ?? {}),
  );
  return [...new Set(keys)];
}
