import type { APIRequestContext, Locator, Page } from '@playwright/test';
import { signInAsNewOwner } from './support/auth';
import { importPaymentsThroughApi, paymentsCsv } from './support/seeding';
import { expect, test } from './support/test';

/**
 * The customers page (issue 20), each test in an account of its own with three customers
 * imported from a CSV: find one by search and open it from its URL, create a calculated
 * column and watch it fill in without a reload, reorder the table's columns by dragging.
 */

const CUSTOMERS = [
  { id: 'alpha-co', monthly: 100 },
  { id: 'beta-co', monthly: 200 },
  { id: 'gamma-co', monthly: 300 },
];

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

async function openCustomers(page: Page, request: APIRequestContext): Promise<void> {
  const owner = await signInAsNewOwner(page, request, 'customers');
  await importPaymentsThroughApi(request, owner.token, paymentsCsv(CUSTOMERS));
  await page.getByRole('link', { name: 'Customers' }).first().click();
  await expect(page).toHaveURL(/\/customers$/);
  await expect(customersTable(page).getByRole('link', { name: 'alpha-co' })).toBeVisible();
}

const customersTable = (page: Page) => page.getByRole('table', { name: 'Customers' });
const headers = (page: Page) => customersTable(page).locator('thead th');
const editColumns = (page: Page) => page.getByRole('dialog', { name: 'Edit columns' });
const columnDrawer = (page: Page) => page.getByRole('dialog', { name: 'Create column' });

/** Picks an option of a select inside `scope`. */
async function choose(page: Page, scope: Locator, label: string, option: string): Promise<void> {
  await scope.getByRole('combobox', { name: label }).click();
  await page.getByRole('option', { name: option, exact: true }).click();
}

/** The text of `customer`'s cell in the column headed `header`. */
async function cellOf(page: Page, customer: string, header: string): Promise<string> {
  const titles = await headers(page).allTextContents();
  const index = titles.findIndex((title) => title === header);
  if (index < 0) throw new Error(`no column ${header} in ${titles.join(', ')}`);
  const row = customersTable(page).locator('tbody tr').filter({ has: page.getByRole('link', { name: customer, exact: true }) });
  return (await row.locator('td').nth(index).textContent()) ?? '';
}

test.describe('the customers page', () => {
  test('finds a customer by search and opens it from its URL', async ({ page, request }) => {
    await openCustomers(page, request);
    await page.getByRole('textbox', { name: 'Search customers' }).fill('gamma');
    await expect(customersTable(page).locator('tbody tr')).toHaveCount(1);
    await customersTable(page).getByRole('link', { name: 'gamma-co' }).click();
    await expect(page.getByRole('dialog', { name: /Details: gamma-co/ })).toBeVisible();
    await expect(page).toHaveURL(/\/customers\/[^/]+$/);
    const url = page.url();

    await page.goto(url);
    await expect(page.getByRole('dialog', { name: /Details: gamma-co/ })).toBeVisible();
    await page.getByRole('button', { name: 'Close details' }).click();
    await expect(page).toHaveURL(/\/customers$/);
  });

  test('creates a calculated column and watches it fill in without a reload', async ({ page, request }) => {
    await openCustomers(page, request);
    await page.getByRole('button', { name: 'Edit columns' }).click();
    await editColumns(page).getByRole('button', { name: 'Add column' }).click();
    const drawer = columnDrawer(page);
    await expect(drawer).toBeVisible();
    await drawer.getByRole('textbox', { name: 'Column name' }).fill('MRR this month');
    const variable = drawer.getByRole('group', { name: 'Variable 1' });
    await choose(page, variable, 'Calculation', 'MRR');
    await variable.getByRole('textbox', { name: 'Name' }).fill('mrr');
    const now = new Date();
    await choose(page, variable, 'From month', MONTHS[now.getUTCMonth()] as string);
    await choose(page, variable, 'From year', String(now.getUTCFullYear()));
    await expect(variable.getByRole('combobox', { name: 'To month' })).toBeDisabled();
    await drawer.getByRole('button', { name: 'Create column' }).click();
    await expect(drawer).toBeHidden();

    // The new column is shown at once ('Calculating:' while the job runs), then filled in.
    await expect(headers(page).filter({ hasText: 'MRR this month' })).toHaveCount(1);
    await expect(headers(page).filter({ hasText: 'Calculating:' })).toHaveCount(0, { timeout: 30_000 });
    await expect.poll(() => cellOf(page, 'gamma-co', 'MRR this month'), { timeout: 15_000 }).toMatch(/\d/);
    const gamma = Number((await cellOf(page, 'gamma-co', 'MRR this month')).replace(/,/g, ''));
    const alpha = Number((await cellOf(page, 'alpha-co', 'MRR this month')).replace(/,/g, ''));
    expect(gamma).toBeCloseTo(alpha * 3, 5);
  });

  test('reorders the columns by dragging one with the mouse, and keeps the order', async ({ page, request }) => {
    await openCustomers(page, request);
    const before = await headers(page).allTextContents();
    expect(before.slice(0, 3)).toEqual(['Name', expect.any(String), expect.any(String)]);
    const [, second = '', third = ''] = before;

    await page.getByRole('button', { name: 'Edit columns' }).click();
    const drawer = editColumns(page);
    const handle = drawer.getByRole('button', { name: `Drag ${third}` });
    const target = drawer.getByRole('listitem', { name: second });
    // Hovering waits until the drawer has slid in (the handle stops moving).
    await handle.hover();
    const from = await handle.boundingBox();
    const to = await target.boundingBox();
    if (!from || !to) throw new Error('the drag handle or its target is not on screen');
    await page.mouse.move(from.x + from.width / 2, from.y + from.height / 2);
    await page.mouse.down();
    await page.mouse.move(from.x + from.width / 2, from.y - 10, { steps: 5 });
    await page.mouse.move(from.x + from.width / 2, to.y + to.height / 4, { steps: 10 });
    await expect(drawer.getByRole('listitem', { name: third })).toHaveCSS('z-index', '1');
    await page.mouse.up();
    await expect(drawer.getByRole('listitem').nth(1)).toHaveAttribute('aria-label', third);
    // dnd-kit swallows a click that comes within 50 ms of a drop (its sensor's capture listener, so a
    // drop does not also click what is under the pointer); a person is never that quick, Playwright
    // can be. Save again only while the drawer is still open.
    await expect(async () => {
      if (await drawer.isVisible()) await drawer.getByRole('button', { name: 'Save' }).click({ timeout: 2_000 });
      await expect(drawer).toBeHidden({ timeout: 2_000 });
    }).toPass();

    await expect.poll(async () => (await headers(page).allTextContents()).slice(0, 3)).toEqual(['Name', third, second]);
    await page.reload();
    await expect.poll(async () => (await headers(page).allTextContents()).slice(0, 3)).toEqual(['Name', third, second]);
  });
});
