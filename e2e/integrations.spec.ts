import type { APIRequestContext } from '@playwright/test';
import { signInAsNewOwner } from './support/auth';
import { expect, test } from './support/test';

/**
 * Connecting Chargebee from Settings → Data sources against the fake Chargebee (started by the
 * global setup; E2E_FAKE_CHARGEBEE_URL): a wrong API key shows the spec's cannot-connect
 * message, the right one saves, the card shows the first sync's percentage, then Connected
 * with the sync-complete toast, and a report's MRR holds the synced subscriptions.
 */

const SEEDED = 3;
const AMOUNT = 5000;
/** The first day of this month: the seeded subscriptions start then, so this month's MRR holds them. */
const thisMonth = `${new Date().toISOString().slice(0, 7)}-01`;
const [year, month] = thisMonth.split('-').map(Number) as [number, number];
/** Two months before this one (a report spans three months at least). */
const startIndex = year * 12 + month - 1 - 2;

interface Section {
  definition_id: string;
  segments: { is_total: boolean; series: { data_points: { value: number | null }[] }[] }[];
}

/** This month's MRR as a report of this month computes it (refreshed, as its Recalculate button does, once the sync made it stale). */
async function mrrThisMonth(request: APIRequestContext, token: string, secret: string): Promise<number | null> {
  const headers = { authorization: `Bearer ${token}` };
  const answer = await request.get(`/api/v11/business_reports/by_secret?secret=${secret}`, { headers });
  const body = (await answer.json()) as { id: string; recalculation_status: string; freshness_status: string; sections: Section[] };
  if (body.recalculation_status !== 'recalculated') return null;
  if (body.freshness_status === 'stale') {
    await request.post(`/api/v11/business_reports/${body.id}/refresh`, { headers });
    return null;
  }
  const mrr = body.sections.find((section) => section.definition_id === 'mrr');
  return mrr?.segments.find((segment) => segment.is_total)?.series[0]?.data_points.at(-1)?.value ?? null;
}

test('connects Chargebee through its dialog: a wrong key is refused, the right one syncs with its percentage and the toast', async ({ page, request }) => {
  test.setTimeout(180_000);
  const fake = process.env.E2E_FAKE_CHARGEBEE_URL;
  if (!fake) throw new Error('E2E_FAKE_CHARGEBEE_URL is not set: the global setup starts the fakes');
  expect((await request.post(`${fake}/__fake/seed`, { data: { customers: SEEDED, amount: AMOUNT, start: thisMonth } })).ok()).toBe(true);
  // Each list answer waits, so the first sync is seen in progress.
  expect((await request.post(`${fake}/__fake/delay`, { data: { ms: 700 } })).ok()).toBe(true);

  const owner = await signInAsNewOwner(page, request, 'chargebee');
  const created = await request.post('/api/v11/business_reports', {
    headers: { authorization: `Bearer ${owner.token}` },
    data: { title: 'Chargebee e2e', sections: [{ definition_id: 'mrr' }], period: { start_year: Math.floor(startIndex / 12), start_month: (startIndex % 12) + 1, end_year: year, end_month: month } },
  });
  expect(created.status()).toBe(201);
  const { secret } = (await created.json()) as { secret: string };

  await page.goto('/settings');
  const card = page.getByRole('region', { name: 'Chargebee' });
  await expect(card.getByText('Configuration needed')).toBeVisible();
  await card.getByRole('button', { name: 'Connect Chargebee' }).click();
  const dialog = page.getByRole('dialog', { name: 'Connect Chargebee' });

  await dialog.getByLabel('Site').fill('acme-e2e');
  await dialog.getByLabel('API key').fill('not_the_key');
  await dialog.getByRole('button', { name: 'Save' }).click();
  await expect(dialog.getByText('We could not connect to Chargebee, please make sure your Site and API token are correct')).toBeVisible();

  await dialog.getByLabel('API key').fill('test_chargebee_key');
  await dialog.getByRole('button', { name: 'Save' }).click();
  await expect(dialog).toBeHidden();
  await expect(card.getByText(/^Sync in progress \(\d+%\)$/)).toBeVisible();
  await expect(card.getByText('Connected', { exact: true })).toBeVisible({ timeout: 60_000 });
  await expect(page.getByText('Chargebee is synced: your reports now include its data')).toBeVisible();

  await expect.poll(() => mrrThisMonth(request, owner.token, secret), { timeout: 60_000 }).toBeGreaterThanOrEqual(SEEDED * AMOUNT);
  await request.post(`${fake}/__fake/delay`, { data: { ms: 0 } });
});
