import type { Download, Page } from '@playwright/test';
import { readFile } from 'node:fs/promises';
import Papa from 'papaparse';
import { signInThroughForm } from './support/auth';
import { pointTooltip } from './support/charts';
import { expect, test } from './support/test';

/**
 * Section exports (issue 7) on the demo account: the MRR section's data as CSV from the
 * section menu, its numbers checked against the chart's tooltip, and the details export: the
 * started toast, the notification with its Download action, and the file it downloads. Exports
 * only read the account, so the shared server's demo account serves.
 */

const DEMO = { email: 'demo@subscope.dev', password: 'subscope-demo-2026' };

const section = (page: Page, title: string) => page.getByRole('region', { name: title, exact: true });

/** The downloaded file as CSV rows (byte order mark dropped). */
async function csvOf(download: Download): Promise<string[][]> {
  const path = await download.path();
  const text = await readFile(path, 'utf8');
  expect(text.startsWith('\uFEFF'), 'a UTF-8 byte order mark').toBe(true);
  return Papa.parse<string[]>(text.slice(1), { skipEmptyLines: true }).data;
}

/** '$12,345' as the chart shows money (whole units). */
const shownDollars = (dollars: number) => new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD', minimumFractionDigits: 0, maximumFractionDigits: 0 }).format(dollars);


test.beforeEach(async ({ page }) => {
  await page.goto('/sign_in');
  await signInThroughForm(page, DEMO.email, DEMO.password);
  await expect(page).toHaveURL(/\/$/);
  const link = page.getByRole('link', { name: /^\d{4}-\d{2} business overview$/ });
  await link.click();
  await expect(page).toHaveURL(/\/reports\/[A-Za-z0-9]{32}$/);
  await expect(section(page, 'MRR')).toHaveAttribute('data-chart-state', 'drawn', { timeout: 20_000 });
});

test('exports a section’s data as CSV from its menu: a row per month, the numbers the chart shows', async ({ page }) => {
  const mrr = section(page, 'MRR');
  await mrr.getByRole('button', { name: 'Section menu of MRR' }).click();
  const downloading = page.waitForEvent('download');
  await page.getByRole('menuitem', { name: 'Export data (CSV)' }).click();
  const download = await downloading;
  expect(download.suggestedFilename()).toBe('mrr-data.csv');
  const rows = await csvOf(download);
  expect(rows[0]).toEqual(['Period', 'Start date', 'MRR (USD)']);
  const months = rows.slice(1);
  expect(months.length).toBeGreaterThanOrEqual(12);
  for (const row of months) {
    expect(row[0]).toMatch(/^\d{4}-\d{2}$/);
    expect(row[1]).toBe(`${row[0]}-01`);
  }

  // The last complete month: the CSV's number is the chart's.
  const lastComplete = new Date(Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth() - 1, 1)).toISOString().slice(0, 7);
  const index = months.findIndex((row) => row[0] === lastComplete);
  expect(index, `the CSV has ${lastComplete}`).toBeGreaterThanOrEqual(0);
  const value = Number(months[index]?.[2]);
  expect(value).toBeGreaterThan(0);
  const tooltip = await pointTooltip(mrr, index, lastComplete);
  await expect(tooltip).toContainText(`MRR: ${shownDollars(value)}`);
});

test('exports a section’s details: in progress, then a notification whose Download gives the customers behind the chart', async ({ page }) => {
  // The details of every month of the chart are computed on the server.
  test.setTimeout(120_000);
  // The CSV of the chart, to compare with.
  const mrr = section(page, 'MRR');
  await mrr.getByRole('button', { name: 'Section menu of MRR' }).click();
  const dataDownload = page.waitForEvent('download');
  await page.getByRole('menuitem', { name: 'Export data (CSV)' }).click();
  const chart = (await csvOf(await dataDownload)).slice(1);
  await expect(page.getByRole('menu')).toBeHidden();

  // This time with the keyboard: the menu opens on Enter, the item is chosen with Enter.
  await mrr.getByRole('button', { name: 'Section menu of MRR' }).focus();
  await page.keyboard.press('Enter');
  const details = page.getByRole('menuitem', { name: 'Export details' });
  await expect(details).toBeVisible();
  await details.focus();
  await page.keyboard.press('Enter');
  await expect(page.getByText('Your export is in progress. We will notify you once completed')).toBeVisible();
  const ready = page.getByRole('alert').filter({ hasText: /^Your export is ready: mrr-details-/ });
  await expect(ready).toBeVisible({ timeout: 60_000 });
  // The started toast goes after 5 s; the notification stays.
  await expect(page.getByText('Your export is in progress. We will notify you once completed')).toBeHidden({ timeout: 10_000 });
  await expect(ready).toBeVisible();

  const downloading = page.waitForEvent('download');
  await ready.getByRole('link', { name: 'Download' }).click();
  const download = await downloading;
  expect(download.suggestedFilename()).toMatch(/^mrr-details-\d{4}-\d{2}-01-to-\d{4}-\d{2}-\d{2}\.csv$/);
  const rows = await csvOf(download);
  const header = rows[0] as string[];
  expect(header.slice(0, 2)).toEqual(['Customer ID', 'Customer']);
  // A column per month of the chart.
  expect(header.slice(2)).toEqual(chart.map((row) => `${row[0]} (USD)`));
  const customers = rows.slice(1, -1);
  expect(customers.length).toBeGreaterThan(100);
  // A customer row: an id, a name, and a dollar amount (or nothing) per month.
  const paying = customers.find((row) => row.slice(2).some((cell) => Number(cell) > 0)) as string[];
  expect(paying[0]).not.toBe('');
  expect(paying[1]).not.toBe('');
  for (const cell of paying.slice(2)) expect(cell === '' || Number.isFinite(Number(cell))).toBe(true);
  // The total row adds up to the chart, month by month.
  const total = rows.at(-1) as string[];
  expect(total.slice(0, 2)).toEqual(['', 'Total']);
  expect(total.length).toBe(chart.length + 2);
  chart.forEach((row, k) => expect(Number(total[k + 2]), `the total of ${row[0]}`).toBeCloseTo(Number(row[2]), 2));
});
