import type { Page } from '@playwright/test';
import { signInThroughForm } from './support/auth';
import { amountOf, openPoint } from './support/details';
import { untilUpToDate } from './support/reportState';
import { expect, test } from './support/test';

/**
 * Drill-down (issue 7) on the demo account: a data point of the MRR chart opens the section
 * details dialog, whose customers add up to the number shown, and a customer opens the
 * customer details drawer with its payments.
 */

const DEMO = { email: 'demo@subscope.dev', password: 'subscope-demo-2026' };

async function openBusinessOverview(page: Page): Promise<void> {
  await page.goto('/sign_in');
  await signInThroughForm(page, DEMO.email, DEMO.password);
  await expect(page).toHaveURL(/\/$/);
  const link = page.getByRole('link', { name: /^\d{4}-\d{2} business overview$/ });
  await expect(link).toHaveCount(1);
  await link.click();
  await expect(page).toHaveURL(/\/reports\/[A-Za-z0-9]{32}$/);
  // Other specs import into the shared demo account: recompute a report left outdated, so the
  // chart shows the numbers of the data the details are computed from.
  await untilUpToDate(page);
}

test('a data point’s customers add up to it, and a customer opens with its payments', async ({ page }) => {
  await openBusinessOverview(page);
  const mrr = page.getByRole('region', { name: 'MRR', exact: true });
  await mrr.scrollIntoViewIfNeeded();
  const markers = mrr.locator('.apexcharts-marker');
  await expect(markers.first()).toBeAttached({ timeout: 20_000 });
  const count = await markers.count();
  // The last complete month (the last point is the current one).
  const dialog = await openPoint(mrr, count - 2, /^MRR, \d{4}-\d{2}$/);

  const table = dialog.getByRole('table', { name: 'Customers' });
  await expect(table).toBeVisible({ timeout: 30_000 });
  const shown = amountOf(await dialog.getByRole('group', { name: 'Value on the chart' }).locator('strong').innerText());
  expect(shown).toBeGreaterThan(0);

  // Every listed customer's value, the other customers' sum, and the total.
  const rows = table.locator('tbody tr');
  const rowCount = await rows.count();
  const values: number[] = [];
  for (let k = 0; k < rowCount - 1; k++) values.push(amountOf(await rows.nth(k).locator('td').last().innerText()));
  const total = amountOf(await rows.last().locator('td').last().innerText());
  await expect(rows.last()).toContainText(/^Total \(\d[\d,]* customers\)/);
  expect(values.length).toBeGreaterThan(1);
  // Each row is rounded to the cent; the point on the chart to the whole unit.
  expect(Math.abs(values.reduce((sum, value) => sum + value, 0) - total)).toBeLessThanOrEqual(0.005 * values.length + 1e-9);
  expect(Math.abs(total - shown)).toBeLessThanOrEqual(0.5);

  // The first (largest) customer opens in the drawer.
  const first = rows.first().getByRole('button');
  const name = (await first.innerText()).trim();
  await first.click();
  const drawer = page.getByRole('dialog', { name: new RegExp(`Details: ${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`) });
  await expect(drawer).toBeVisible();
  await expect(drawer.getByRole('group', { name: 'MRR' })).toBeVisible();
  const payments = drawer.getByRole('table', { name: 'Payments' });
  await expect(payments).toBeVisible({ timeout: 20_000 });
  await expect(payments.locator('tbody tr').first()).not.toContainText('No payments');
  // Newest first by default: the start dates go down.
  const starts = await payments.locator('tbody tr td:first-child').allInnerTexts();
  expect(starts.length).toBeGreaterThan(0);
  expect([...starts].sort().reverse()).toEqual(starts);
  await expect(drawer.getByRole('figure', { name: 'Revenue timeline' })).toBeVisible();
});

test('a data point’s details open explore with the point’s title and its customers', async ({ page }) => {
  await openBusinessOverview(page);
  const mrr = page.getByRole('region', { name: 'MRR', exact: true });
  await mrr.scrollIntoViewIfNeeded();
  const markers = mrr.locator('.apexcharts-marker');
  await expect(markers.first()).toBeAttached({ timeout: 20_000 });
  const reportPath = new URL(page.url()).pathname;
  const dialog = await openPoint(mrr, (await markers.count()) - 2, /^MRR, \d{4}-\d{2}$/);
  const title = (await dialog.getByRole('heading').first().innerText()).trim();
  await dialog.getByRole('button', { name: 'Explore customers' }).click();

  await expect(page).toHaveURL(/\/explore\/[^/]+\/total\/\d{4}-\d{2}-\d{2}$/);
  await expect(page.getByRole('heading', { level: 1, name: title })).toBeVisible();
  await expect(page.getByRole('link', { name: 'Back to report' })).toHaveAttribute('href', reportPath);
  const figure = page.getByRole('figure', { name: 'Customers by months as a customer' });
  await expect(figure).toBeVisible({ timeout: 30_000 });
  await expect(figure.locator('.apexcharts-series .apexcharts-marker').first()).toBeAttached({ timeout: 20_000 });
});
