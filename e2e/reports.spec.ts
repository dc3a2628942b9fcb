import { signInAsNewOwner } from './support/auth';
import { MONTH_LABELS } from '../models/reportRange';
import { expect, test } from './support/test';

/** Payments of the dialog's four columns: `count` customers paying $100 a month for the last months. */
function paymentsCsv(count: number): string {
  const today = new Date();
  const start = new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth() - 5, 1));
  const end = new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth() + 1, 1));
  const day = (date: Date) => date.toISOString().slice(0, 10);
  return ['customer_id,started_at,ended_at,monthly_amount', ...Array.from({ length: count }, (_, k) => `e2e-${k + 1},${day(start)},${day(end)},100.00`)].join('\n') + '\n';
}

test.describe('reports', () => {
  test('a report made from the library shows its charts, turns stale when data is imported in another tab, and recalculates on Refresh', async ({ page, request, context }) => {
    const owner = await signInAsNewOwner(page, request, 'report-stale');

    // The library: a template makes the report and opens it.
    await page.goto('/reports/library');
    await page.getByRole('button', { name: 'Create report from Business overview' }).click();
    await expect(page).toHaveURL(/\/reports\/[A-Za-z0-9]{32}$/);
    await expect(page.getByRole('heading', { level: 1, name: /business overview$/ })).toBeVisible();
    await expect(page.getByText('Up to date')).toBeVisible({ timeout: 30_000 });
    // No data yet: the page prompts to import.
    await expect(page.getByText('Import your data')).toBeVisible();
    const mrr = page.getByRole('region', { name: 'MRR', exact: true });
    await expect(mrr.locator('.apexcharts-canvas')).toBeVisible();
    await page.screenshot({ path: test.info().outputPath('before.png') });

    // Another tab imports payments (through the API, as the import dialog does).
    const other = await context.newPage();
    const upload = await other.request.post('/api/v11/subscriptions/csv_import', {
      headers: { authorization: `Bearer ${owner.token}` },
      multipart: {
        column_order: 'customer_id,started_at,ended_at,monthly_amount',
        paying_customers: { name: 'payments.csv', mimeType: 'text/csv', buffer: Buffer.from(paymentsCsv(3)) },
      },
    });
    expect(upload.status()).toBe(200);
    const { id } = (await upload.json()) as { id: string };
    await expect
      .poll(async () => ((await (await other.request.get(`/api/v11/subscriptions/csv_import/${id}`, { headers: { authorization: `Bearer ${owner.token}` } })).json()) as { status: string }).status, { timeout: 30_000 })
      .toBe('done');
    await other.close();

    // The report page, not reloaded, hears that its data changed.
    const staleCallout = page.getByRole('status').filter({ hasText: 'Data may be outdated' });
    await expect(staleCallout).toBeVisible({ timeout: 15_000 });
    await expect(page.getByText('Outdated', { exact: true })).toBeVisible();
    await staleCallout.getByRole('button', { name: 'Refresh' }).click();

    // Recalculated live: the callout goes, the badge is back, and MRR has the imported payments.
    await expect(staleCallout).toBeHidden({ timeout: 30_000 });
    await expect(page.getByText('Up to date')).toBeVisible({ timeout: 30_000 });
    await page.screenshot({ path: test.info().outputPath('after.png') });
    await expect(mrr.getByText('$300').first()).toBeVisible();
    await expect(page.getByText('Import your data')).toBeHidden();

    // The list shows the report, with its owner.
    await page.goto('/');
    await expect(page.getByText(/business overview$/).first()).toBeVisible();
    await expect(page.getByText(`By ${owner.name}`).first()).toBeVisible();
  });

  test('the range picker refuses each invalid range with its message', async ({ page, request }) => {
    await signInAsNewOwner(page, request, 'report-range');
    await page.goto('/reports/library');
    await page.getByRole('button', { name: 'Create report from SaaS metrics' }).click();
    await expect(page).toHaveURL(/\/reports\/[A-Za-z0-9]{32}$/);
    await page.getByRole('button', { name: 'Report range' }).click();
    const pick = async (label: string, option: string) => {
      await page.getByRole('combobox', { name: label }).click();
      await page.getByRole('option', { name: option, exact: true }).click();
    };
    const alert = page.getByRole('dialog', { name: 'Report range' }).getByRole('alert');
    const today = new Date();
    const year = today.getFullYear();
    // The month after the current one (the year's options end in 2027, so not always next year's).
    const next = new Date(year, today.getMonth() + 1, 1);
    await pick('To year', String(next.getFullYear()));
    await pick('To month', MONTH_LABELS[next.getMonth()] as string);
    await expect(alert).toHaveText('Can not extend range beyound current date.');
    await pick('To year', String(year - 2));
    await pick('From year', String(year - 1));
    await expect(alert).toHaveText('From date can not be ahead of the To date');
    await pick('From year', String(year - 2));
    await pick('From month', 'Jan');
    await pick('To month', 'Feb');
    await expect(alert).toHaveText('Total report range should be at least 3 months');
    await pick('To month', 'Dec');
    await expect(alert).toBeHidden();
    await page.getByRole('button', { name: 'Apply' }).click();
    await expect(page.getByRole('button', { name: 'Report range' })).toHaveText(`Jan ${year - 2} – Dec ${year - 2}`);
  });
});
