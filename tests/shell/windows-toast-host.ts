/**
 * What Windows and Electron 45 do with a toast we built from `toastXml` when a person presses one of its
 * buttons (or its body), so the tests feed the notifier exactly what it would get:
 *
 * - Windows parses the XML (`XmlDocumentFromString` in electron/electron
 *   shell/browser/notifications/win/windows_toast_notification.cc) and, on activation, passes the pressed
 *   `<action>`'s `arguments` attribute — for a body click the `<toast launch>` — verbatim to the app's
 *   `INotificationActivationCallback::Activate` (Microsoft Learn, "Toast content schema": `arguments`,
 *   `launch`).
 * - Electron's `HandleToastActivation` (windows_toast_activator.cc, 43-x-y … main) splits that string on
 *   `&` and `=`, keeps only pairs with exactly two non-empty parts, reads `type`, `action`, `tag`, builds
 *   `ActivationArguments { type: 'action' | 'reply' | 'click', actionIndex, arguments: <raw> }`, hands it to
 *   the `Notification.handleActivation` callback, and then fires `action`/`click` on the live Notification
 *   whose `notification_id` equals `tag` (since electron#50328 the raw id; `FastHash(id)` before it).
 */

export interface Delivered {
  /** What `Notification.handleActivation`'s callback receives. */
  details: { type: string; arguments: string; actionIndex?: number };
  /** The live Notification's id Electron would look for (`tag`), if any. */
  tag: string | undefined;
}

/** Presses button `index` (or the body, `'body'`) of the toast described by `toastXml`. */
export function press(toastXml: string, index: number | 'body'): Delivered {
  const toast = elements(toastXml, 'toast')[0];
  if (!toast) throw new Error('not a toast document');
  let invoked: string;
  if (index === 'body') invoked = toast.launch ?? '';
  else {
    const action = elements(toastXml, 'action')[index];
    if (!action) throw new Error(`the toast has no button ${index}`);
    invoked = action.arguments ?? '';
  }
  return deliver(invoked);
}

/**
 * The attributes of every `<name …>` element, values decoded as an XML parser does (the five predefined
 * entities and numeric references). Enough for the flat toast schema; a malformed attribute list throws.
 */
export function elements(xml: string, name: string): Record<string, string>[] {
  const found: Record<string, string>[] = [];
  for (const m of xml.matchAll(new RegExp(`<${name}((?:\\s+[\\w-]+="[^"<]*")*)\\s*/?>`, 'g'))) {
    const attrs: Record<string, string> = {};
    for (const a of m[1]!.matchAll(/([\w-]+)="([^"<]*)"/g)) attrs[a[1]!] = decodeXml(a[2]!);
    found.push(attrs);
  }
  return found;
}

/** The text content of every `<name>…</name>` element, decoded. */
export function texts(xml: string, name: string): string[] {
  return [...xml.matchAll(new RegExp(`<${name}>([^<]*)</${name}>`, 'g'))].map((m) => decodeXml(m[1]!));
}

function decodeXml(text: string): string {
  const named: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };
  return text.replace(/&(#x[0-9a-f]+|#\d+|\w+);/gi, (whole, ref: string) => {
    if (ref.startsWith('#x') || ref.startsWith('#X')) return String.fromCodePoint(parseInt(ref.slice(2), 16));
    if (ref.startsWith('#')) return String.fromCodePoint(Number(ref.slice(1)));
    const value = named[ref];
    if (value === undefined) throw new Error(`undefined XML entity ${whole}`);
    return value;
  });
}

/** Electron's HandleToastActivation on an `invoked_args` string, as far as the app can observe it. */
export function deliver(invoked: string): Delivered {
  let type = '';
  let action = '';
  let tag: string | undefined;
  for (const token of invoked.split('&').filter((t) => t !== '')) {
    const kv = token.split('=').filter((p) => p !== '');
    if (kv.length !== 2) continue;
    if (kv[0] === 'type') type = kv[1]!;
    else if (kv[0] === 'action') action = kv[1]!;
    else if (kv[0] === 'tag') tag = kv[1];
  }
  // base::StringToInt: the whole string must be a number, else the index stays -1.
  const actionIndex = /^[+-]?\d+$/.test(action) ? Number(action) : -1;
  const details =
    type === 'action' ? { type: 'action', arguments: invoked, actionIndex } : { type: 'click', arguments: invoked };
  return { details, tag };
}

/**
 * Why Windows' XML parser (`XmlDocumentFromString` → `XmlDocument::LoadXml`, called from electron/electron
 * windows_toast_notification.cc `CreateToastXmlDocument`) refuses a toast document, or undefined when it loads.
 * XML 1.0 §2.2 Char: only #x9, #xA, #xD, #x20–#xD7FF, #xE000–#xFFFD and #x10000–#x10FFFF may appear, raw or as a
 * character reference (well-formedness constraint "Legal Character"); an undefined entity is an error too.
 */
export function xmlLoadError(xml: string): string | undefined {
  const legal = (cp: number): boolean =>
    cp === 0x9 ||
    cp === 0xa ||
    cp === 0xd ||
    (cp >= 0x20 && cp <= 0xd7ff) ||
    (cp >= 0xe000 && cp <= 0xfffd) ||
    (cp >= 0x10000 && cp <= 0x10ffff);
  for (const ch of xml) {
    const cp = ch.codePointAt(0)!;
    if (!legal(cp)) return `illegal character U+${cp.toString(16).padStart(4, '0')}`;
  }
  for (const m of xml.matchAll(/&(#x[0-9a-f]+|#\d+|\w+);/gi)) {
    const ref = m[1]!;
    if (!ref.startsWith('#')) {
      if (!['lt', 'gt', 'amp', 'quot', 'apos'].includes(ref)) return `undefined entity &${ref};`;
      continue;
    }
    const cp = ref[1] === 'x' || ref[1] === 'X' ? parseInt(ref.slice(2), 16) : Number(ref.slice(1));
    if (!legal(cp)) return `illegal character reference &${ref};`;
  }
  return undefined;
}
