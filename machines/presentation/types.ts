/**
 * Presentation mode (the report page's 'Present'): the report as a slideshow, one slide at a
 * time. A slide is named by an id: the title slide first (`PRESENTATION_TITLE_SLIDE_ID`), then
 * each section the page shows, by the section's id. The machine keeps only the ids and where
 * the reader is; what a slide shows is the view's.
 */

export interface PresentationContext {
  /** The slides' ids in order (empty while closed). */
  slides: readonly string[];
  /** The slide shown (0 = the first), always within `slides` while presenting. */
  index: number;
}

/** Events from the view (its keys and buttons, the page's Present button, the page's sections). */
export type PresentationEvent =
  /** 'Present': the slideshow starts on its first slide (full screen, with the hot keys toast). */
  | { type: 'presentation.open'; slides: readonly string[] }
  /** Right arrow, Space or 'Next slide': the next slide; on the last slide the slideshow ends. */
  | { type: 'presentation.next' }
  /** Left arrow or 'Previous slide': the slide before (nothing on the first). */
  | { type: 'presentation.previous' }
  /** Home, End: a slide by its position (clamped to the slides there are). */
  | { type: 'presentation.go'; index: number }
  /** Esc, 'Leave presentation', or the browser leaving full screen. */
  | { type: 'presentation.leave' }
  /**
   * The report changed underneath (a live update added or removed a section, a filter was
   * applied or cleared): the slides as they are now. The slide shown stays if it is still
   * there, else its position does (clamped to the new last slide).
   */
  | { type: 'presentation.slidesChanged'; slides: readonly string[] };

export type PresentationEventType = PresentationEvent['type'];
