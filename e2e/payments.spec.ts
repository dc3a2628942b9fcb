import type { Locator, Page } from '@playwright/test';
import { signInAsNewOwner } from './support/auth';
import { columnTooltip } from './support/charts';
import { addMonths, shownMoney } from './support/demoNumbers';
import { untilUpToDate } from './support/reportState';
import { createReportThroughApi } from './support/seeding';
import { expect, test } from './support/test';

/**
 * Payments by hand (issue 22), in an account of its own: two payments for a new customer made
 * with 'Create and add another', both in the table and in the MRR chart of a report; an edit and
 * a delete that the report recalculates.
 */

const current = () => new Date().toISOString().slice(0, 7);

const newDrawer = (page: Page) => page.getByRole('dialog', { name: 'New payment' });
const editDrawer = (page: Page) => page.getByRole('dialog', { name: /^Payment: / });
const paymentsTable = (page: Page) => page.getByRole('table', { name: 'Payments' });
const mrr = (page: Page) => page.getByRole('region', { name: 'MRR', exact: true });


/** This month's MRR as the report's chart shows it. */
async function expectMrr(page: Page, secret: string, minorUnits: number): Promise<void> {
  await page.goto(`/reports/${secret}`);
  await untilUpToDate(page);
  await expect(await columnTooltip(mrr(page), 2, current())).toContainText(`MRR: ${shownMoney(minorUnits, 'USD')}`);
}

/** Fills the subscription form: total, whole months, the product (a new one, or one found by its name). */
async function fillSubscription(drawer: Locator, { total, months, product, invoice, isNewProduct }: { total: string; months: string; product: string; invoice: string; isNewProduct: boolean }) {
  await drawer.getByRole('textbox', { name: 'Total value', exact: true }).fill(total);
  await drawer.getByRole('textbox', { name: 'Months', exact: true }).fill(months);
  await drawer.getByRole('textbox', { name: 'Invoice number' }).fill(invoice);
  await drawer.getByRole('combobox', { name: 'Product' }).fill(product);
  const page = drawer.page();
  await page.getByRole('option', { name: isNewProduct ? `+ New product “${product}”` : product, exact: true }).click();
}

test('payments made by hand: create and add another, see them in the table and the MRR, edit one and delete it', async ({ page, request }) => {
  test.setTimeout(240_000);
  const owner = await signInAsNewOwner(page, request, 'payments');
  // A report of the MRR section over the last three months, this one included.
  const { secret } = await createReportThroughApi(request, owner.token, { title: 'Payments e2e', from: addMonths(current(), -2), to: current() });

  await page.goto('/payments');
  await expect(page.getByText(/No payments yet/)).toBeVisible();
  await page.getByRole('button', { name: 'New payment' }).click();
  const drawer = newDrawer(page);
  const create = drawer.getByRole('button', { name: 'Create', exact: true });
  const another = drawer.getByRole('button', { name: 'Create and add another' });
  await expect(create).toBeDisabled();

  // A new customer; the form's rules show their messages and keep both buttons off.
  await drawer.getByText('New customer', { exact: true }).click();
  await drawer.getByRole('textbox', { name: 'Customer name' }).fill('Zeta Labs');
  await drawer.getByRole('textbox', { name: 'Total value', exact: true }).fill('12x');
  await expect(drawer.getByText('Value should be a number ex. 1200.20')).toBeVisible();
  await expect(another).toBeDisabled();
  // $1,200 over 12 months: $100 a month.
  await fillSubscription(drawer, { total: '1200', months: '12', product: 'Pro plan', invoice: 'E2E-1', isNewProduct: true });
  await expect(drawer.getByTestId('live-monthly-amount')).toHaveText('$100.00');
  await another.click();

  // The customer stays for the next payment; the rest starts afresh. $600 over 6 months: $100 a month.
  await expect(drawer.getByRole('textbox', { name: 'Total value', exact: true })).toHaveValue('');
  await expect(drawer.getByRole('combobox', { name: 'Customer' })).toHaveValue('Zeta Labs');
  await fillSubscription(drawer, { total: '600', months: '6', product: 'Pro plan', invoice: 'E2E-2', isNewProduct: false });
  await create.click();
  await expect(drawer).toBeHidden();

  const rows = paymentsTable(page).getByRole('row');
  await expect(rows.filter({ hasText: 'E2E-1' })).toContainText('$1,200.00');
  await expect(rows.filter({ hasText: 'E2E-2' })).toContainText('$600.00');
  await expect(rows.filter({ hasText: 'Zeta Labs' })).toHaveCount(2);

  await expectMrr(page, secret, 20_000);

  // Edit the second: $1,200 over its 6 months is $200 a month.
  await page.goto('/payments');
  await rows.filter({ hasText: 'E2E-2' }).click();
  const edit = editDrawer(page);
  await expect(edit.getByRole('textbox', { name: 'Total value', exact: true })).toHaveValue('600');
  await edit.getByRole('textbox', { name: 'Total value', exact: true }).fill('1200');
  await edit.getByRole('button', { name: 'Save payment' }).click();
  await expect(edit.getByText('$1,200.00 over 6 months')).toBeVisible();
  await expect(rows.filter({ hasText: 'E2E-2' })).toContainText('$200.00');
  await expectMrr(page, secret, 30_000);

  // Delete it: only the first payment's $100 is left.
  await page.goto('/payments');
  await rows.filter({ hasText: 'E2E-2' }).click();
  await editDrawer(page).getByRole('button', { name: 'Delete payment' }).click();
  await page.getByRole('dialog', { name: 'Delete payment' }).getByRole('button', { name: 'Delete payment' }).click();
  await expect(editDrawer(page)).toBeHidden();
  await expect(rows.filter({ hasText: 'E2E-2' })).toHaveCount(0);
  await expect(rows.filter({ hasText: 'E2E-1' })).toHaveCount(1);
  await expectMrr(page, secret, 10_000);
});
