/**
 * The one way renderer code puts text into a page (SECURITY.md#what-a-person-reads). The DOM already refuses
 * markup (text goes in as text, never as HTML); what is left is what a person reads: a bidi override in a
 * command reverses it, a zero-width or tag character hides words. Every string goes through
 * main/domain/visible-text.ts, the same function as the CLI's, so such characters show as marks.
 */
import { visible, type TextLayout } from '../main/domain/visible-text.js';

/** Sets the text of `node`; `one-line` for a command or a title, whose line breaks are shown too. */
export function setText(node: Node, text: string, layout: TextLayout = 'lines'): void {
  node.textContent = visible(text, layout);
}

/** A text node to append (the transcript, appended a piece at a time). */
export function textNode(text: string): Text {
  return document.createTextNode(visible(text));
}

/** An attribute a person reads (a label, a tooltip, an image's alternative text). */
export function attributeText(text: string): string {
  return visible(text, 'one-line');
}
