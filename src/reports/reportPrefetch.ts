import type { ApiClient } from '../api/client';

/**
 * The report page's data, asked for as the app starts when it opens on `/reports/{secret}`:
 * the answer then travels while the session is checked and the page's code downloads, instead
 * of after both (some 100 ms of the report bench's first charts). The page takes it once
 * (`takePrefetchedReport`); any later read asks the server again.
 */
const REPORT_PATH = /^\/reports\/([A-Za-z0-9]{16,128})\/?$/;

type ReportAnswer = ReturnType<typeof readReport>;

function readReport(client: ApiClient, secret: string) {
  return client.GET('/business_reports/by_secret', { params: { query: { secret } } });
}

let early: { secret: string; answer: ReportAnswer } | null = null;

/**
 * Starts reading the report `pathname` opens, if it opens one, and `loadPageCode` (the report
 * page's chunk, handed in by the entry point so this module does not import the page that
 * imports it).
 */
export function prefetchReportOf(pathname: string, client: ApiClient, loadPageCode: () => Promise<unknown>): void {
  const secret = REPORT_PATH.exec(pathname)?.[1];
  if (!secret) return;
  const answer = readReport(client, secret);
  // Whoever takes it handles a failure; unclaimed, it must not be an unhandled rejection.
  answer.catch(() => undefined);
  early = { secret, answer };
  loadPageCode().catch(() => undefined);
}

/** The answer started for `secret`, once; null when none was (then read it as usual). */
export function takePrefetchedReport(secret: string): ReportAnswer | null {
  if (early?.secret !== secret) return null;
  const { answer } = early;
  early = null;
  return answer;
}
