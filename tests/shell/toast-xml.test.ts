/**
 * Toast buttons must still answer after a restart. The toast is our own `toastXml`; the
 * activation is fed back exactly as Windows + Electron deliver it (windows-toast-host.ts names the sources).
 */
import { describe, expect, it } from 'vitest';
import type { ToastPlan } from '../../main/shell/toast-plan.js';
import { activationKey, readActivation, toastXmlFor } from '../../main/shell/toast-xml.js';
import { deliver, elements, press, texts, xmlLoadError } from './windows-toast-host.js';

const TASK = '019a7f3c-1d2e-7001-8a4b-5c6d7e8f9a0b';
const TOAST = `${TASK}.mfx1a2b3`;
const plan: ToastPlan = {
  id: TASK,
  title: 'dsh wants to run: ls <src> & "x"',
  body: 'C:\\Users\\Zoë\\p',
  buttons: ['Allow', 'Deny'],
  answers: ['allow-1', 'reject-1'],
  pendingKey: 'permission:req=7&x',
};
const key = activationKey('per-install-token');
const xml = toastXmlFor(plan, {
  toastId: TOAST,
  key,
  icon: 'C:\\Program Files\\Contactor\\resources\\icons\\app.png',
  persistent: true,
});

describe('toastXmlFor', () => {
  it('is a well-formed toast whose texts and buttons are ours, escaped', () => {
    expect(texts(xml, 'text')).toEqual([plan.title, plan.body]);
    expect(elements(xml, 'action').map((a) => a.content)).toEqual(['Allow', 'Deny']);
    // Permission toasts stay on screen until acted upon (Electron's own timeoutType 'never' does the same).
    expect(elements(xml, 'toast')[0]!.scenario).toBe('reminder');
    expect(elements(xml, 'image')[0]!.src).toBe('C:\\Program Files\\Contactor\\resources\\icons\\app.png');
    expect(toastXmlFor(plan, { toastId: TOAST, key, persistent: false })).not.toContain('scenario');
  });

  it('a pressed button reaches the live Notification (tag = its own toast id) and names task, question and button', () => {
    const { details, tag } = press(xml, 1);
    expect(tag).toBe(TOAST);
    expect(details).toMatchObject({ type: 'action', actionIndex: 1 });
    expect(readActivation(details, key)).toEqual({
      kind: 'action',
      taskId: TASK,
      pendingKey: plan.pendingKey,
      index: 1,
      toastId: TOAST,
    });
  });

  it('a body click names the task', () => {
    const { details, tag } = press(xml, 'body');
    expect(tag).toBe(TOAST);
    expect(readActivation(details, key)).toEqual({ kind: 'click', taskId: TASK, toastId: TOAST });
  });

  it('agent text with ANSI colours and control characters still gives a document Windows loads', () => {
    const noisy: ToastPlan = {
      ...plan,
      title: 'dsh wants to run: \u001b[31mrm\u001b[0m -i x\u0007',
      body: 'C:\\p\u0000\u000b\u000c\u001f\ufffe end \ud800 and 😀',
    };
    const loaded = toastXmlFor(noisy, { toastId: TOAST, key, persistent: false });
    expect(xmlLoadError(loaded)).toBeUndefined();
    expect(texts(loaded, 'text')).toEqual(['dsh wants to run: rm -i x', 'C:\\p end  and 😀']);
    // What Windows' parser does with what escaping alone leaves in (the fake's check has teeth).
    expect(xmlLoadError('<toast><text>a\u001bb</text></toast>')).toMatch(/U\+001b/);
    expect(xmlLoadError('<toast><text>a&#27;b</text></toast>')).toMatch(/&#27;/);
  });
});

describe('readActivation refuses what it did not sign', () => {
  const real = press(xml, 0).details.arguments;
  it.each([
    ['Electron’s built-in button arguments (tag only)', `type=action&action=0&tag=${TASK}`],
    ['the FastHash-era tag', 'type=action&action=0&tag=13571113171923'],
    ['our fields without a signature', real.replace(/&sig=[^&]*/, '')],
    ['another button index under the same signature', real.replace('action=0', 'action=1')],
    ['another task under the same signature', real.replaceAll(TASK, '019a7f3c-0000-7001-8a4b-5c6d7e8f9a0b')],
    ['another question under the same signature', real.replace(/q=[^&]*/, 'q=permission%3Aother')],
    ['a forged signature', real.replace(/sig=[^&]*/, `sig=${'A'.repeat(43)}`)],
    ['garbage', '%%%&&==&type=action&action=99999999999&sig'],
  ])('%s: ignored, never an answer', (_what, args) => {
    const result = readActivation(deliver(args).details, key);
    expect(result.kind).toBe('ignored');
  });

  it('a toast signed under another token (rotated) is ignored', () => {
    expect(readActivation(press(xml, 0).details, activationKey('rotated-token')).kind).toBe('ignored');
    expect(readActivation(press(xml, 0).details, undefined).kind).toBe('ignored');
  });

  it('an unsigned body click only opens the window (no task)', () => {
    expect(readActivation(deliver('').details, key)).toEqual({ kind: 'click' });
    expect(readActivation(deliver(`tag=${TASK}`).details, key)).toEqual({ kind: 'click' });
  });
});
