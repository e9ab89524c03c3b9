/**
 * Reading and adding one member of a JSON (or JSONC: comments, trailing commas) settings file without
 * touching the rest of its text: comments, key order, spacing and number spellings stay as the person left
 * them. The file is scanned once for its top-level members; an addition is text inserted right after an
 * object's `{`, so nothing else moves. (A format-preserving library such as `jsonc-parser`'s `modify`
 * would do the same; this does only the one edit registration needs.)
 */

/** The file's text without comments and trailing commas: what JSON.parse reads. */
export function plainJson(text: string): string {
  let out = '';
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (c === '"') {
      const end = stringEnd(text, i);
      out += text.slice(i, end);
      i = end;
    } else if (c === '/' && text[i + 1] === '/') {
      while (i < text.length && text[i] !== '\n') i += 1;
    } else if (c === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      i = end < 0 ? text.length : end + 2;
    } else if (c === ',' && '}]'.includes(text[skipTo(text, i + 1)] ?? '')) {
      i += 1;
    } else {
      out += c;
      i += 1;
    }
  }
  return out;
}

/** The parsed settings, `{}` for an empty file; throws a message naming the file when it is not an object. */
export function parseSettings(text: string, file: string): Record<string, unknown> {
  if (text.trim() === '') return {};
  let value: unknown;
  try {
    value = JSON.parse(plainJson(text));
  } catch (err) {
    throw new Error(`${file} is not valid JSON (${(err as Error).message}); fix it, then run this again`, {
      cause: err,
    });
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new Error(`${file} does not hold a JSON object; fix it, then run this again`);
  }
  return value as Record<string, unknown>;
}

/**
 * `text` with `name: value` added to the object at `path` (top-level key names; missing ones are created),
 * as the first member, indented like the file. The caller has checked that `name` is not there yet.
 */
export function withMember(text: string, path: readonly string[], name: string, value: unknown): string {
  if (text.trim() === '') return `${JSON.stringify(nest([...path, name], value), null, 2)}\n`;
  const unit = indentUnit(text);
  let open = objectStart(text, 0);
  let depth = 1;
  const missing: string[] = [];
  for (const [i, key] of path.entries()) {
    const found = memberObject(text, open, key);
    if (found === undefined) {
      missing.push(...path.slice(i));
      break;
    }
    open = found;
    depth += 1;
  }
  const entry = missing.length ? nest([...missing, name], value) : { [name]: value };
  const [[key, inner]] = Object.entries(entry) as [[string, unknown]];
  const pad = unit.repeat(depth);
  const body = JSON.stringify(inner, null, unit).replace(/\n/g, `\n${pad}`);
  const empty = text[skipTo(text, open + 1)] === '}';
  const member = `\n${pad}${JSON.stringify(key)}: ${body}${empty ? `\n${unit.repeat(depth - 1)}` : ','}`;
  // A file written on Windows keeps its CRLF line ends.
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  return text.slice(0, open + 1) + member.replace(/\n/g, eol) + text.slice(open + 1);
}

function nest(keys: readonly string[], value: unknown): Record<string, unknown> {
  return keys.reduceRight<unknown>((inner, key) => ({ [key]: inner }), value) as Record<string, unknown>;
}

/** The indentation the file uses (its first indented line), two spaces when it has none. */
function indentUnit(text: string): string {
  return /\n([ \t]+)\S/.exec(text)?.[1] ?? '  ';
}

/** The index of the `{` opening the value at or after `from` (comments skipped). */
function objectStart(text: string, from: number): number {
  const at = skipTo(text, from);
  if (text[at] !== '{') throw new Error('the settings file does not hold a JSON object');
  return at;
}

/** The `{` of member `key`'s object value, in the object whose `{` is at `open`; undefined when absent. */
function memberObject(text: string, open: number, key: string): number | undefined {
  let depth = 0;
  let i = open;
  let expectKey = false;
  while (i < text.length) {
    const c = text[i]!;
    if (c === '"') {
      const end = stringEnd(text, i);
      if (depth === 1 && expectKey) {
        const name = JSON.parse(text.slice(i, end)) as string;
        const colon = skipTo(text, end);
        if (name === key && text[colon] === ':') {
          const valueAt = skipTo(text, colon + 1);
          return text[valueAt] === '{' ? valueAt : undefined;
        }
      }
      expectKey = false;
      i = end;
      continue;
    }
    if (c === '/' && (text[i + 1] === '/' || text[i + 1] === '*')) {
      i = skipTo(text, i);
      continue;
    }
    if (c === '{' || c === '[') depth += 1;
    if (c === '}' || c === ']') {
      depth -= 1;
      if (depth === 0) return undefined;
    }
    if ((c === '{' && depth === 1) || (c === ',' && depth === 1)) expectKey = true;
    i += 1;
  }
  return undefined;
}

/** The index just past the string literal that starts at `start`. */
function stringEnd(text: string, start: number): number {
  let i = start + 1;
  while (i < text.length && text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
  return i + 1;
}

/** The index of the first character at or after `from` that is neither whitespace nor in a comment. */
function skipTo(text: string, from: number): number {
  let i = from;
  for (;;) {
    while (i < text.length && /\s/.test(text[i]!)) i += 1;
    if (text.startsWith('//', i)) {
      while (i < text.length && text[i] !== '\n') i += 1;
    } else if (text.startsWith('/*', i)) {
      const end = text.indexOf('*/', i + 2);
      i = end < 0 ? text.length : end + 2;
    } else return i;
  }
}
