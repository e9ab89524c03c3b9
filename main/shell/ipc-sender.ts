/**
 * What every window's IPC handlers check first: that the call comes from that window's own page
 * (security checklist #17), by identity, and that its payload parses with the shared schema.
 */

/**
 * The part of an IpcMainInvokeEvent we rely on (electron.d.ts `IpcMainInvokeEvent`): the sending WebContents
 * and frame; `senderFrame` is null once the frame is gone.
 */
export interface IpcSender {
  sender: { id: number };
  senderFrame: { processId: number; routingId: number; url: string } | null;
}

/** Who a window is right now: its WebContents and that one's main frame. */
export interface FrameIdentity {
  webContentsId: number;
  processId: number;
  routingId: number;
}

/**
 * Throws unless `event` comes from `own` (undefined while there is no window). By identity, never by
 * comparing URL strings: Chromium's canonical file URL of the page differs from Node's pathToFileURL for
 * install paths holding `~` (8.3 short names), `%`, `[`, `]` or a lowercase drive letter
 * (url/url_canon_path.cc kPathCharLookup, url_canon_fileurl.cc FileDoDriveSpec).
 */
export function checkSender(own: FrameIdentity | undefined, event: IpcSender, window: string): void {
  const frame = event.senderFrame;
  const isOwn =
    own !== undefined &&
    frame !== null &&
    event.sender.id === own.webContentsId &&
    frame.processId === own.processId &&
    frame.routingId === own.routingId;
  if (!isOwn)
    throw new Error(
      `refused an IPC call from ${frame ? frame.url || 'a frame' : 'a closed frame'}: only the ${window} may call it`,
    );
}

export function parseOrThrow<T>(
  schema: {
    safeParse(
      v: unknown,
    ): { success: true; data: T } | { success: false; error: { issues: { message: string; path: PropertyKey[] }[] } };
  },
  raw: unknown,
): T {
  const parsed = schema.safeParse(raw);
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues
    .map((i) => (i.path.length ? `${i.path.join('.')}: ${i.message}` : i.message))
    .join('; ');
  throw new Error(`invalid IPC payload: ${issues}`);
}
