/**
 * Which series of a chart are shown, driven by legend clicks (spec section 9):
 * - a click selects that one series; a second click on the only selected series clears the
 *   selection (everything shown again);
 * - a click with Ctrl, Meta (Cmd) or Shift adds a series to the selection, or takes a selected
 *   one out of it; with nothing selected yet it excludes the clicked series (all the others
 *   become the selection).
 * An empty selection means every series is shown. A selection of every series, or of none after
 * taking the last one out, is the same as no selection, so it is normalised to [].
 */
export type LegendSelection = readonly string[];

export interface LegendClick {
  /** The key of the clicked series. */
  key: string;
  /** Ctrl, Meta or Shift held. */
  modifier: boolean;
}

export function nextLegendSelection(selection: LegendSelection, click: LegendClick, allKeys: readonly string[]): LegendSelection {
  const known = selection.filter((key) => allKeys.includes(key));
  if (!allKeys.includes(click.key)) return known;
  if (!click.modifier) {
    return known.length === 1 && known[0] === click.key ? [] : [click.key];
  }
  const base = known.length === 0 ? allKeys : known;
  const next = base.includes(click.key) ? base.filter((key) => key !== click.key) : allKeys.filter((key) => key === click.key || base.includes(key));
  return next.length === allKeys.length ? [] : next;
}

export function isSeriesShown(selection: LegendSelection, key: string): boolean {
  return selection.length === 0 || selection.includes(key);
}

/** Ctrl, Meta (Cmd) or Shift: the keys that multi-select or exclude. */
export function isModifierClick(event: { ctrlKey: boolean; metaKey: boolean; shiftKey: boolean }): boolean {
  return event.ctrlKey || event.metaKey || event.shiftKey;
}

/**
 * Legend entries shown before the rest fold into 'N segment(s) more'. Not a constant of the
 * spec (which gives only the text); ours, the size of the spec's other segment lists.
 */
export const LEGEND_VISIBLE_ITEMS = 10;

/** The spec's 'N segment(s) more': '1 segment more', '3 segments more'. */
export function moreSegmentsLabel(hidden: number): string {
  return `${hidden} ${hidden === 1 ? 'segment' : 'segments'} more`;
}
