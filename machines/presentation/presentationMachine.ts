import { assign, setup } from 'xstate';
import type { ActorRefFrom, SnapshotFrom } from 'xstate';
import type { PresentationContext, PresentationEvent } from './types';

const CLOSED_CONTEXT: PresentationContext = { slides: [], index: 0 };

/** `index` as a position within `count` slides (0 when there are none). */
export function clampIndex(index: number, count: number): number {
  if (count <= 0 || !Number.isFinite(index)) return 0;
  return Math.min(Math.max(Math.trunc(index), 0), count - 1);
}

/**
 * Where the reader is once the slides changed underneath: on the same slide (by id) when it
 * is still there, else at the same position, clamped to the new last slide.
 */
export function indexAfterChange(before: readonly string[], index: number, after: readonly string[]): number {
  const shown = before[index];
  const kept = shown === undefined ? -1 : after.indexOf(shown);
  return kept >= 0 ? kept : clampIndex(index, after.length);
}

type OpenEvent = Extract<PresentationEvent, { type: 'presentation.open' }>;
type GoEvent = Extract<PresentationEvent, { type: 'presentation.go' }>;
type SlidesChangedEvent = Extract<PresentationEvent, { type: 'presentation.slidesChanged' }>;

/**
 * Presentation mode: 'Present' opens the report as a slideshow (the title slide, then one
 * slide per section).
 *
 * - `closed` (initial): nothing shown. `presentation.open` with the slides' ids (at least
 *   one) → `presenting` on the first slide.
 * - `presenting`: one slide at a time. Entering it shows the hot keys toast (`showHotKeys`)
 *   and asks for full screen (`enterFullscreen`); leaving it, however it is left, gives full
 *   screen back (`exitFullscreen`) and forgets the slides.
 *   - `presentation.next`: the next slide; on the last slide → `closed`.
 *   - `presentation.previous`: the slide before; nothing on the first.
 *   - `presentation.go`: the slide at a position, clamped to the slides there are.
 *   - `presentation.leave` (Esc, the close button, the browser leaving full screen) → `closed`.
 *   - `presentation.slidesChanged`: the report changed underneath; the slide shown stays by
 *     its id, or, when it is gone, its position does (clamped to the new last slide).
 *
 * The three effects are named actions the view provides (a toast, the Fullscreen API).
 */
export const presentationMachine = setup({
  types: {
    context: {} as PresentationContext,
    events: {} as PresentationEvent,
  },
  actions: {
    /** The toast listing the keys (provided: the app's toast helpers). */
    showHotKeys: () => {},
    /** Asks the browser for full screen (provided; a refusal is ignored). */
    enterFullscreen: () => {},
    /** Leaves full screen if the page is in it (provided). */
    exitFullscreen: () => {},
    start: assign((_, params: { slides: readonly string[] }) => ({ slides: [...params.slides], index: 0 })),
    advance: assign({ index: ({ context }) => clampIndex(context.index + 1, context.slides.length) }),
    back: assign({ index: ({ context }) => clampIndex(context.index - 1, context.slides.length) }),
    goTo: assign({ index: ({ context }, params: { index: number }) => clampIndex(params.index, context.slides.length) }),
    changeSlides: assign(({ context }, params: { slides: readonly string[] }) => ({
      slides: [...params.slides],
      index: indexAfterChange(context.slides, context.index, params.slides),
    })),
    forget: assign(() => CLOSED_CONTEXT),
  },
  guards: {
    hasSlides: (_, params: { slides: readonly string[] }) => params.slides.length > 0,
    onLast: ({ context }) => context.index >= context.slides.length - 1,
    notFirst: ({ context }) => context.index > 0,
  },
}).createMachine({
  id: 'presentation',
  context: CLOSED_CONTEXT,
  initial: 'closed',
  states: {
    closed: {
      on: {
        'presentation.open': {
          guard: { type: 'hasSlides', params: ({ event }: { event: OpenEvent }) => ({ slides: event.slides }) },
          target: 'presenting',
          actions: { type: 'start', params: ({ event }: { event: OpenEvent }) => ({ slides: event.slides }) },
        },
      },
    },

    presenting: {
      entry: ['showHotKeys', 'enterFullscreen'],
      exit: ['exitFullscreen', 'forget'],
      on: {
        'presentation.next': [{ guard: 'onLast', target: 'closed' }, { actions: 'advance' }],
        'presentation.previous': { guard: 'notFirst', actions: 'back' },
        'presentation.go': { actions: { type: 'goTo', params: ({ event }: { event: GoEvent }) => ({ index: event.index }) } },
        'presentation.leave': { target: 'closed' },
        'presentation.slidesChanged': { actions: { type: 'changeSlides', params: ({ event }: { event: SlidesChangedEvent }) => ({ slides: event.slides }) } },
      },
    },
  },
});

export type PresentationMachine = typeof presentationMachine;
export type PresentationSnapshot = SnapshotFrom<PresentationMachine>;
/** A running presentation, as the view holds it. */
export type PresentationActorRef = ActorRefFrom<PresentationMachine>;
