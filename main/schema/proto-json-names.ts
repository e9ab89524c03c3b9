/**
 * ProtoJSON field names. A v1 request is the JSON form of an a2a.proto message, and a ProtoJSON parser
 * "accepts both the lowerCamelCase name and the original proto field name"; a field given under both
 * names is an error (protobuf's JSON parser: "duplicate field"). This maps every member to its JSON name
 * before the v1 schemas read it, so `history_length` means `historyLength` at every depth — except inside
 * free-form values (google.protobuf.Struct / Value: `metadata`, a part's `data`), which are the caller's
 * own keys and pass through untouched.
 */

/** Members holding a Struct or Value: user data, never renamed. */
const FREE_FORM = new Set(['metadata', 'data']);

export class DuplicateFieldError extends Error {
  constructor(
    readonly first: string,
    readonly second: string,
  ) {
    super(`"${first}" and "${second}" name the same field; send it once`);
    this.name = 'DuplicateFieldError';
  }
}

/** protoc's ToJsonName: drop each underscore and capitalise the character after it. */
export function jsonName(protoName: string): string {
  return protoName.includes('_') ? protoName.replace(/_+([^_])/g, (_, c: string) => c.toUpperCase()) : protoName;
}

/** A copy of `value` with every member under its JSON name; throws DuplicateFieldError. */
export function withJsonNames(value: unknown, path = ''): unknown {
  if (Array.isArray(value)) return value.map((item, i) => withJsonNames(item, `${path}[${i}].`));
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  const given = new Map<string, string>();
  for (const [key, member] of Object.entries(value)) {
    const name = jsonName(key);
    const earlier = given.get(name);
    if (earlier !== undefined) throw new DuplicateFieldError(`${path}${earlier}`, `${path}${key}`);
    given.set(name, key);
    // defineProperty: a member named "__proto__" stays data, never the copy's prototype.
    Object.defineProperty(out, name, {
      value: FREE_FORM.has(name) ? member : withJsonNames(member, `${path}${name}.`),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}
