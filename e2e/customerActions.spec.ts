import type { APIRequestContext, Locator, Page } from '@playwright/test';
import { signInAsNewOwner } from './support/auth';
import { amountOf } from './support/details';
import { importPaymentsThroughApi, paymentsCsv } from './support/seeding';
import { expect, test } from './support/test';

/**
 * The customer drawer's actions and explore (issue 20), in an account of its own with four
 * customers paying $100, $200, $300 and $400 a month: merging two keeps MRR and counts one
 * customer fewer once the report recalculates (the numbers the report's charts draw, read as its
 * page reads them); excluding one takes its MRR out of the report; explore plots the customers
 * behind a point and a point opens its customer (drillDown.spec.ts opens explore from a data
 * point's details, on the demo report).
 */

const CUSTOMERS = [
  { id: 'alpha-co', monthly: 100 },
  { id: 'beta-co', monthly: 200 },
  { id: 'gamma-co', monthly: 300 },
  { id: 'delta-co', monthly: 400 },
];
const TOTAL_MRR = CUSTOMERS.reduce((sum, c) => sum + c.monthly, 0);

interface Account {
  token: string;
  secret: string;
}

async function newReport(page: Page, request: APIRequestContext, prefix: string): Promise<Account> {
  const owner = await signInAsNewOwner(page, request, prefix);
  await importPaymentsThroughApi(request, owner.token, paymentsCsv(CUSTOMERS));
  await page.goto('/reports/library');
  await page.getByRole('button', { name: 'Create report from Business overview' }).click();
  await expect(page).toHaveURL(/\/reports\/[A-Za-z0-9]{32}$/);
  await expect(page.getByText('Up to date')).toBeVisible({ timeout: 60_000 });
  return { token: owner.token, secret: new URL(page.url()).pathname.split('/').pop() ?? '' };
}

interface ReportAnswer {
  id: string;
  recalculation_status: string;
  sections: { id: string; definition_id: string; segments: { id: string; series: { data_points: { time: string; value: number | null }[] }[] }[] }[];
}

/** The report as its page reads it (what the charts draw). */
async function readReport(request: APIRequestContext, { token, secret }: Account): Promise<ReportAnswer> {
  const response = await request.get(`/api/v11/business_reports/by_secret?secret=${secret}`, { headers: { authorization: `Bearer ${token}` } });
  expect(response.status()).toBe(200);
  return (await response.json()) as ReportAnswer;
}

/** A section's total at the last complete month (the chart's last point but one), in major units for money. */
function lastCompleteMonth(report: ReportAnswer, definition: 'mrr' | 'customers'): number {
  const points = report.sections.find((entry) => entry.definition_id === definition)?.segments.find((segment) => segment.id === 'total')?.series[0]?.data_points ?? [];
  const value = points.at(-2)?.value ?? NaN;
  return definition === 'mrr' ? value / 100 : value;
}

/** Waits until the report, recalculated after a change, shows these numbers at the last complete month. */
async function expectReport(request: APIRequestContext, account: Account, expected: { mrr: number; customers: number }): Promise<void> {
  await expect
    .poll(
      async () => {
        const report = await readReport(request, account);
        return { mrr: lastCompleteMonth(report, 'mrr'), customers: lastCompleteMonth(report, 'customers'), status: report.recalculation_status };
      },
      { timeout: 90_000, intervals: [1_000, 2_000, 5_000] },
    )
    .toEqual({ ...expected, status: 'recalculated' });
}

/** The id of the customer whose public id (the imported customer_id) is `publicId`. */
async function customerId(request: APIRequestContext, { token }: Account, publicId: string): Promise<string> {
  const response = await request.get(`/api/v11/customer/search?query=${publicId}`, { headers: { authorization: `Bearer ${token}` } });
  const { items } = (await response.json()) as { items: { id: string; public_id: string | null }[] };
  const found = items.find((item) => item.public_id === publicId) ?? items[0];
  if (!found) throw new Error(`no customer ${publicId}`);
  return found.id;
}

/** The customer's drawer, opened from its URL. */
async function openCustomerPage(page: Page, id: string): Promise<Locator> {
  await page.goto(`/customers/${id}`);
  const drawer = page.getByRole('dialog', { name: /^Details: / });
  await expect(drawer).toBeVisible({ timeout: 20_000 });
  await expect(drawer.getByRole('group', { name: 'MRR' })).toBeVisible({ timeout: 20_000 });
  return drawer;
}

test.describe('customer actions', () => {
  test('merging two customers keeps MRR and counts one customer fewer; excluding one takes its MRR out', async ({ page, request }) => {
    test.setTimeout(300_000);
    const account = await newReport(page, request, 'customer-merge');
    await expectReport(request, account, { mrr: TOTAL_MRR, customers: CUSTOMERS.length });

    // Merge beta-co into alpha-co from alpha-co's drawer.
    const drawer = await openCustomerPage(page, await customerId(request, account, 'alpha-co'));
    await drawer.getByRole('button', { name: 'Customer actions' }).click();
    await page.getByRole('menuitem', { name: 'Merge customer' }).click();
    const merge = page.getByRole('dialog', { name: 'Merge customer' });
    await merge.getByRole('button', { name: 'Merge' }).click();
    await expect(merge.getByText('Please select a customer')).toBeVisible();
    await merge.getByRole('combobox', { name: 'Customer to merge' }).fill('beta');
    await page.getByRole('option', { name: /^beta-co/ }).click();
    await merge.getByRole('button', { name: 'Merge' }).click();
    await expect(page.getByText('Operation succeeded')).toBeVisible();
    await expect(merge).toBeHidden();
    // The drawer shows the target, now with both customers' MRR.
    await expect(drawer.getByRole('group', { name: 'MRR' })).toContainText('$300', { timeout: 20_000 });

    // The report recalculates: the same MRR, one customer fewer; its page says it is up to date.
    await expectReport(request, account, { mrr: TOTAL_MRR, customers: CUSTOMERS.length - 1 });
    await page.goto(`/reports/${account.secret}`);
    await expect(page.getByText('Up to date')).toBeVisible({ timeout: 30_000 });

    // Exclude gamma-co: its $300 leaves MRR; the menu item is ticked afterwards.
    const gamma = await openCustomerPage(page, await customerId(request, account, 'gamma-co'));
    await gamma.getByRole('button', { name: 'Customer actions' }).click();
    await page.getByRole('menuitem', { name: 'Exclude from metrics calculation' }).click();
    await expect(gamma.getByText('Excluded from metrics calculation')).toBeVisible();
    await gamma.getByRole('button', { name: 'Customer actions' }).click();
    await expect(page.getByRole('menuitem', { name: /Exclude from metrics calculation\s*\(on\)/ })).toBeVisible();
    await page.keyboard.press('Escape');
    await expectReport(request, account, { mrr: TOTAL_MRR - 300, customers: CUSTOMERS.length - 2 });
  });

  test('explore plots the point’s customers by growth bucket, and a point opens its customer', async ({ page, request }) => {
    test.setTimeout(180_000);
    const account = await newReport(page, request, 'customer-explore-points');
    const report = await readReport(request, account);
    const section = report.sections.find((entry) => entry.definition_id === 'mrr');
    const date = section?.segments[0]?.series[0]?.data_points.at(-2)?.time ?? '';
    await page.goto(`/explore/${section?.id ?? ''}/total/${date}`);

    // Opened afresh (no route state): the server's title, and back to the reports.
    await expect(page.getByRole('heading', { level: 1, name: /^MRR: \d{4}-\d{2}$/i })).toBeVisible({ timeout: 30_000 });
    await expect(page.getByRole('link', { name: 'Back to reports' })).toHaveAttribute('href', '/');
    const figure = page.getByRole('figure', { name: 'Customers by months as a customer' });
    await expect(figure).toBeVisible({ timeout: 30_000 });
    // Every customer has paid the same since it started: one bucket holds all four.
    await expect(figure.getByRole('group', { name: 'Legend' })).toContainText(`0 % (${CUSTOMERS.length})`);
    await expect(page.getByRole('radio', { name: 'New MRR when occurred' })).toBeChecked();
    await page.screenshot({ path: test.info().outputPath('explore.png') });

    const points = figure.locator('.apexcharts-series .apexcharts-marker');
    await expect(points).toHaveCount(CUSTOMERS.length, { timeout: 20_000 });
    const drawer = page.getByRole('dialog', { name: /^Details: / });
    await expect(async () => {
      await points.first().click({ force: true });
      await expect(drawer).toBeVisible({ timeout: 2_000 });
    }).toPass({ timeout: 20_000 });
    await expect(drawer.getByRole('group', { name: 'MRR' })).toBeVisible({ timeout: 20_000 });
    expect(amountOf(await drawer.getByRole('group', { name: 'MRR' }).locator('p').last().innerText())).toBeGreaterThan(0);
    await drawer.getByRole('button', { name: 'Close details' }).click();
    await expect(drawer).toBeHidden();

    // Another y axis: the URL says which.
    await page.locator('label', { hasText: 'Accrued total' }).click();
    await expect(page).toHaveURL(/\?y=accrued_total$/);
  });
});
