import { PRESENTATION_KEYS, PRESENTATION_TITLE_SLIDE_ID } from '../../../models/constants';
import type { PresentationEvent } from '../../../machines/presentation/types';

/** The slides of a report: its title slide, then each section shown, by id. */
export function slideIdsOf(sections: readonly { id: string }[]): string[] {
  return [PRESENTATION_TITLE_SLIDE_ID, ...sections.map((section) => section.id)];
}

const KEY_NAMES: Record<string, string> = { ArrowRight: '→', ArrowLeft: '←', ' ': 'Space', Escape: 'Esc', Home: 'Home', End: 'End' };
const named = (keys: readonly string[]) => keys.map((key) => KEY_NAMES[key] ?? key).join(' or ');

/** The hot keys toast's lines: each key and what it does. */
export const HOT_KEYS_HELP: readonly string[] = [
  `${named(PRESENTATION_KEYS.next)}: next slide`,
  `${named(PRESENTATION_KEYS.previous)}: previous slide`,
  `${named(PRESENTATION_KEYS.first)} / ${named(PRESENTATION_KEYS.last)}: first / last slide`,
  `${named(PRESENTATION_KEYS.leave)}: leave the presentation`,
];

/**
 * A key pressed where it belongs to the element: typing in a field, or Space and Enter on a
 * control of the slideshow (`root`) focused from the keyboard, which presses it. A control
 * behind the slideshow (the page's Present button, focused a moment longer) does not count.
 */
function belongsToTarget(key: string, target: EventTarget | null, root: Element | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  if (target.isContentEditable || target.closest('input, textarea, select, [contenteditable="true"]')) return true;
  return (key === ' ' || key === 'Enter') && root !== null && root.contains(target) && target.closest('button, a[href], [role="button"]') !== null;
}

const is = (keys: readonly string[], key: string) => keys.includes(key);

/** What a key pressed while presenting asks of the slideshow (`root`, its overlay); null: not one of its keys. */
export function presentationEventOfKey(
  event: Pick<KeyboardEvent, 'key' | 'target' | 'ctrlKey' | 'metaKey' | 'altKey'>,
  lastIndex: number,
  root: Element | null,
): PresentationEvent | null {
  if (event.ctrlKey || event.metaKey || event.altKey || belongsToTarget(event.key, event.target, root)) return null;
  if (is(PRESENTATION_KEYS.next, event.key)) return { type: 'presentation.next' };
  if (is(PRESENTATION_KEYS.previous, event.key)) return { type: 'presentation.previous' };
  if (is(PRESENTATION_KEYS.leave, event.key)) return { type: 'presentation.leave' };
  if (is(PRESENTATION_KEYS.first, event.key)) return { type: 'presentation.go', index: 0 };
  if (is(PRESENTATION_KEYS.last, event.key)) return { type: 'presentation.go', index: lastIndex };
  return null;
}
