/** The `currency` of a page's query (`?currency=eur`), as an ISO code; null when absent or not three letters. */
export function currencyOfSearch(search: string): string | null {
  const value = new URLSearchParams(search).get('currency');
  return value && /^[A-Za-z]{3}$/.test(value) ? value.toUpperCase() : null;
}

/** The query that shows a page in `currency` (none: the report's own). */
export function currencySearch(currency: string | null): string {
  return currency ? `?currency=${encodeURIComponent(currency)}` : '';
}
