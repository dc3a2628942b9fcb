import type { PresentationSnapshot } from './presentationMachine';

/** What the view reads of the presentation. */

/** The slideshow is on screen. */
export function isPresenting(snapshot: PresentationSnapshot): boolean {
  return snapshot.matches('presenting');
}

/** The id of the slide shown (null while closed). */
export function currentSlide(snapshot: PresentationSnapshot): string | null {
  return isPresenting(snapshot) ? (snapshot.context.slides[snapshot.context.index] ?? null) : null;
}

/** The position of the slide shown (0 = the first). */
export function index(snapshot: PresentationSnapshot): number {
  return snapshot.context.index;
}

/** How many slides there are (0 while closed). */
export function total(snapshot: PresentationSnapshot): number {
  return snapshot.context.slides.length;
}

/** The first slide is shown: going back does nothing. */
export function isFirst(snapshot: PresentationSnapshot): boolean {
  return isPresenting(snapshot) && snapshot.context.index === 0;
}

/** The last slide is shown: going on ends the slideshow. */
export function isLast(snapshot: PresentationSnapshot): boolean {
  return isPresenting(snapshot) && snapshot.context.index === snapshot.context.slides.length - 1;
}
