/**
 * The Windows toast for a ToastPlan, as `toastXml`, and the reading of its activations.
 *
 * Why our own XML: Electron's built-in `actions` put `type=action&action=<i>&tag=<tag>` in a button's
 * arguments (electron/electron shell/browser/notifications/win/windows_toast_notification.cc, the toast
 * XML writer), and what `tag` holds has changed between releases — `FastHash(notification id)` before
 * electron#50328, the raw id since. Nothing we could rely on after a restart. So every `arguments` here
 * carries our own fields — task id, which question (pending key), button index — signed with a key
 * derived from the per-install token, so another program cannot forge an approval through our toast
 * activator. The `type`/`action`/`tag` fields stay first and in Electron's format: HandleToastActivation
 * (windows_toast_activator.cc) still finds a live Notification by `tag` and fires its `action`/`click`
 * events, and hands the raw string to `Notification.handleActivation` as `details.arguments`.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { ToastPlan } from './toast-plan.js';

/** Electron refuses an `id` (the toast's Tag) over 64 UTF-16 units (electron_api_notification.cc kMaxTagLength). */
export const MAX_TAG_LENGTH = 64;

export interface ToastXmlOptions {
  /**
   * This toast's own id (notifier.ts toastIdFor), never reused: the `tag` Electron matches a press against.
   * Its presenter keeps closed toasts in a set and gives a press to the first object with that tag in pointer
   * order, which for a reused id may be a closed one that swallows it (windows_toast_activator.cc
   * HandleToastActivation; electron_api_notification.cc Notification::Close).
   */
  toastId: string;
  /** Signs the arguments; without a key the toast still works live, but not after a restart. */
  key: Buffer | undefined;
  icon?: string | undefined;
  /** Permission toasts stay until acted upon: `scenario="reminder"` (Electron's own timeoutType 'never'). */
  persistent: boolean;
}

/** The HMAC key for toast arguments, derived from the bridge token (never the token itself). */
export function activationKey(token: string | undefined): Buffer | undefined {
  return token ? createHmac('sha256', token).update('contactor toast activation v1').digest() : undefined;
}

export function toastXmlFor(plan: ToastPlan, opts: ToastXmlOptions): string {
  const args = (type: 'click' | 'action', index?: number): string =>
    activationArguments({ type, toastId: opts.toastId, taskId: plan.id, pendingKey: plan.pendingKey, index }, opts.key);
  const image = opts.icon ? `<image placement="appLogoOverride" hint-crop="none" src="${escapeXml(opts.icon)}"/>` : '';
  const buttons = plan.buttons
    .map(
      (text, i) =>
        `<action content="${escapeXml(text)}" arguments="${escapeXml(args('action', i))}" activationType="foreground"/>`,
    )
    .join('');
  return (
    `<toast launch="${escapeXml(args('click'))}" activationType="foreground"${opts.persistent ? ' scenario="reminder"' : ''}>` +
    `<visual><binding template="ToastGeneric"><text>${escapeXml(plan.title)}</text><text>${escapeXml(plan.body)}</text>${image}</binding></visual>` +
    `<actions>${buttons}</actions></toast>`
  );
}

interface ActivationFields {
  type: 'click' | 'action';
  /** Electron's `tag`; not signed: it only says which live object Electron hands the press to. */
  toastId?: string;
  taskId: string;
  pendingKey: string;
  index?: number | undefined;
}

/** `type=…&action=…&tag=…` first (Electron's format), then ours; values percent-encoded so no `=` or `&` leaks. */
function activationArguments(f: ActivationFields, key: Buffer | undefined): string {
  const params = new URLSearchParams();
  params.set('type', f.type);
  if (f.index !== undefined) params.set('action', String(f.index));
  params.set('tag', f.toastId ?? f.taskId);
  params.set('task', f.taskId);
  params.set('q', f.pendingKey);
  if (key) params.set('sig', signature(key, f));
  return params.toString();
}

function signature(key: Buffer, f: ActivationFields): string {
  const text = [f.type, f.index ?? '', f.taskId, f.pendingKey].join('\n');
  return createHmac('sha256', key).update(text).digest('base64url');
}

export type Activation =
  | { kind: 'action'; taskId: string; pendingKey: string; index: number; toastId: string | undefined }
  | { kind: 'click'; taskId?: string; toastId?: string | undefined }
  | { kind: 'ignored'; reason: string };

/**
 * Reads `details` as Electron delivers them to `Notification.handleActivation` (windows_toast_activator.cc
 * HandleToastActivation: `arguments` is the raw string Windows passed, `type` is derived from it). Only a
 * correctly signed action is an answer; a click without valid fields still opens the window (harmless);
 * anything else is ignored with the reason.
 */
export function readActivation(details: { type: string; arguments: string }, key: Buffer | undefined): Activation {
  const params = new URLSearchParams(details.arguments);
  const taskId = params.get('task') ?? '';
  const toastId = params.get('tag') ?? undefined;
  const pendingKey = params.get('q') ?? '';
  const type = params.get('type');
  const action = params.get('action');
  const index = action !== null && /^\d{1,2}$/.test(action) ? Number(action) : undefined;
  const signed = (fields: ActivationFields): boolean => {
    const given = params.get('sig');
    if (!key || !given) return false;
    const want = Buffer.from(signature(key, fields));
    const got = Buffer.from(given);
    return want.length === got.length && timingSafeEqual(want, got);
  };
  if (details.type !== 'action' || type !== 'action') {
    return taskId && pendingKey && signed({ type: 'click', taskId, pendingKey })
      ? { kind: 'click', taskId, toastId }
      : { kind: 'click' };
  }
  if (!taskId || !pendingKey || index === undefined) return { kind: 'ignored', reason: 'not a contactor toast button' };
  if (!signed({ type: 'action', index, taskId, pendingKey }))
    return { kind: 'ignored', reason: `unsigned or forged toast arguments for task ${taskId}` };
  return { kind: 'action', taskId, pendingKey, index, toastId };
}

/** ANSI escape sequences (CSI `ESC [ … final`, OSC `ESC ] … BEL/ST`, and two-character `ESC x`). */
const ANSI_SEQUENCE = /\u001b(?:\[[0-?]*[ -/]*[@-~]|\][^\u0007\u001b]*(?:\u0007|\u001b\\)?|[@-Z\\-_])/g;
/**
 * What XML 1.0 forbids (§2.2 Char), raw or as a character reference: C0 controls but tab, LF and CR; U+FFFE,
 * U+FFFF; lone surrogates. One of them makes Windows' parser refuse the whole document, so the toast never
 * shows (windows_toast_notification.cc CreateToastXmlDocument → NotificationFailed).
 */
const XML_FORBIDDEN =
  /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** Agent text made safe for an attribute or element: colours and control characters dropped, markup escaped. */
export function escapeXml(text: string): string {
  return text
    .replace(ANSI_SEQUENCE, '')
    .replace(XML_FORBIDDEN, '')
    .replace(/[<>&"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
