/** Small helpers shared by the backends that talk HTTP (http_api and a2a). */

/** JSON.parse that answers undefined for text that is not JSON. */
export function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** True for the error fetch (or a body read) throws when its signal aborts or times out. */
export function isAbort(err: unknown): boolean {
  return err instanceof Error && (err.name === 'AbortError' || err.name === 'TimeoutError');
}
