import { describe, expect, it, vi } from 'vitest';
import type { ApiClient } from '../../../src/api/client';
import { prefetchReportOf, takePrefetchedReport } from '../../../src/reports/reportPrefetch';

const SECRET = 'S'.repeat(32);

function fakeClient() {
  const GET = vi.fn(async () => ({ data: { id: 'rep1' }, response: new Response() }));
  return { client: { GET } as unknown as ApiClient, GET };
}

describe('reading the report as the app starts', () => {
  it('asks for the report a /reports/{secret} page opens, and hands the answer over once', async () => {
    const { client, GET } = fakeClient();
    const loadPageCode = vi.fn(async () => ({}));
    prefetchReportOf(`/reports/${SECRET}`, client, loadPageCode);
    expect(loadPageCode).toHaveBeenCalledTimes(1);
    expect(GET).toHaveBeenCalledWith('/business_reports/by_secret', { params: { query: { secret: SECRET } } });
    expect(takePrefetchedReport('T'.repeat(32))).toBeNull();
    const answer = takePrefetchedReport(SECRET);
    expect(answer).not.toBeNull();
    await expect(answer).resolves.toMatchObject({ data: { id: 'rep1' } });
    // Once: a later read asks the server again.
    expect(takePrefetchedReport(SECRET)).toBeNull();
  });

  it('asks for nothing on other pages', () => {
    const { client, GET } = fakeClient();
    const loadPageCode = vi.fn(async () => ({}));
    for (const path of ['/', '/reports/library', `/reports/${SECRET}/new-section`, `/reports/shared/${SECRET}`, '/settings']) prefetchReportOf(path, client, loadPageCode);
    expect(GET).not.toHaveBeenCalled();
    expect(loadPageCode).not.toHaveBeenCalled();
    expect(takePrefetchedReport(SECRET)).toBeNull();
  });
});
