import { describe, expect, it } from 'vitest';
import { isModifierClick, isSeriesShown, moreSegmentsLabel, nextLegendSelection } from '../../../../src/reports/charts/legendSelection';

const keys = ['basic', 'pro', 'enterprise', 'Other'];
const click = (key: string) => ({ key, modifier: false });
const modifierClick = (key: string) => ({ key, modifier: true });

describe('legend selection', () => {
  it('a click selects that one series', () => {
    expect(nextLegendSelection([], click('pro'), keys)).toEqual(['pro']);
  });

  it('a second click on the selected series clears the selection', () => {
    expect(nextLegendSelection(['pro'], click('pro'), keys)).toEqual([]);
  });

  it('a click on another series moves the selection to it', () => {
    expect(nextLegendSelection(['pro'], click('basic'), keys)).toEqual(['basic']);
    expect(nextLegendSelection(['pro', 'basic'], click('basic'), keys)).toEqual(['basic']);
  });

  it('a modifier click adds a series to the selection, in legend order', () => {
    expect(nextLegendSelection(['enterprise'], modifierClick('basic'), keys)).toEqual(['basic', 'enterprise']);
  });

  it('a modifier click takes a selected series out', () => {
    expect(nextLegendSelection(['basic', 'pro'], modifierClick('pro'), keys)).toEqual(['basic']);
  });

  it('a modifier click with nothing selected excludes that series', () => {
    expect(nextLegendSelection([], modifierClick('Other'), keys)).toEqual(['basic', 'pro', 'enterprise']);
  });

  it('selecting every series, or taking out the last one, shows all (empty selection)', () => {
    expect(nextLegendSelection(['basic', 'pro', 'enterprise'], modifierClick('Other'), keys)).toEqual([]);
    expect(nextLegendSelection(['pro'], modifierClick('pro'), keys)).toEqual([]);
  });

  it('ignores keys that are no longer in the legend', () => {
    expect(nextLegendSelection(['gone'], click('gone'), keys)).toEqual([]);
    expect(nextLegendSelection(['gone', 'pro'], modifierClick('basic'), keys)).toEqual(['basic', 'pro']);
  });

  it('shows every series while nothing is selected, else only the selected', () => {
    expect(isSeriesShown([], 'pro')).toBe(true);
    expect(isSeriesShown(['basic'], 'pro')).toBe(false);
    expect(isSeriesShown(['basic'], 'basic')).toBe(true);
  });

  it.each([
    [{ ctrlKey: true, metaKey: false, shiftKey: false }, true],
    [{ ctrlKey: false, metaKey: true, shiftKey: false }, true],
    [{ ctrlKey: false, metaKey: false, shiftKey: true }, true],
    [{ ctrlKey: false, metaKey: false, shiftKey: false }, false],
  ])('treats %o as a modifier click: %s', (event, expected) => {
    expect(isModifierClick(event)).toBe(expected);
  });

  it("names the folded entries 'N segment(s) more'", () => {
    expect(moreSegmentsLabel(1)).toBe('1 segment more');
    expect(moreSegmentsLabel(3)).toBe('3 segments more');
  });
});
