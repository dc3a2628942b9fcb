import { signInAsNewOwner } from './support/auth';
import { importPaymentsThroughApi, monthStart, paymentsCsv } from './support/seeding';
import { expect, test } from './support/test';

/** Payments of the dialog's four columns: `count` customers paying $100 a month for the last months. */
const recentPayments = (count: number) => paymentsCsv(Array.from({ length: count }, (_, k) => ({ id: `e2e-${k + 1}`, monthly: 100 })), monthStart(-5), monthStart(1));

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
    await importPaymentsThroughApi(other.request, owner.token, recentPayments(3));
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
});
