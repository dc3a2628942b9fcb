import { useCallback, useState } from 'react';
import type { ReportListItem } from './types';

/** Where the reports list keeps the tags chosen in its filter (a JSON array of strings). */
export const REPORT_TAG_FILTER_STORAGE_KEY = 'subscope.reports.tagFilter';

/** The stored tags; none when nothing is stored, the value is not a list of strings or storage is blocked. */
export function readStoredTags(): string[] {
  try {
    const parsed: unknown = JSON.parse(window.localStorage.getItem(REPORT_TAG_FILTER_STORAGE_KEY) ?? '[]');
    return Array.isArray(parsed) ? parsed.filter((tag): tag is string => typeof tag === 'string') : [];
  } catch {
    return [];
  }
}

function storeTags(tags: readonly string[]): void {
  try {
    if (tags.length === 0) window.localStorage.removeItem(REPORT_TAG_FILTER_STORAGE_KEY);
    else window.localStorage.setItem(REPORT_TAG_FILTER_STORAGE_KEY, JSON.stringify(tags));
  } catch {
    // Without storage the filter still works; it is forgotten on reload.
  }
}

/** The chosen tags, kept in localStorage so the filter survives a reload. */
export function useStoredTagFilter(): [string[], (tags: string[]) => void] {
  const [tags, setTags] = useState<string[]>(readStoredTags);
  const choose = useCallback((next: string[]) => {
    setTags(next);
    storeTags(next);
  }, []);
  return [tags, choose];
}

/** Every tag of the reports, once each, in alphabetical order. */
export function tagsOf(reports: readonly ReportListItem[]): string[] {
  return [...new Set(reports.flatMap((report) => report.tags))].sort((a, b) => a.localeCompare(b));
}

/**
 * The reports carrying at least one of the chosen tags. Chosen tags that no report carries any
 * more are ignored, and with none left every report shows.
 */
export function filterByTags(reports: readonly ReportListItem[], chosen: readonly string[]): readonly ReportListItem[] {
  const present = new Set(tagsOf(reports));
  const active = chosen.filter((tag) => present.has(tag));
  if (active.length === 0) return reports;
  return reports.filter((report) => report.tags.some((tag) => active.includes(tag)));
}
