import type { Locator, Page } from '@playwright/test';
import { signInAsNewOwner } from './support/auth';
import { columnTooltip, pointTooltip } from './support/charts';
import { addMonths, shownMoney } from './support/demoNumbers';
import { createReportThroughApi, importPaymentsThroughApi } from './support/seeding';
import { untilUpToDate } from './support/reportState';
import { expect, test } from './support/test';

/**
 * The Settings page (issue 21), each test in an account of its own: the churn window and the
 * account's own exchange rates change what a report shows once it has recalculated, and custom
 * attributes are added, renamed and deleted.
 */

const current = () => new Date().toISOString().slice(0, 7);
/** 'YYYY-MM' → 'YYYY-MM-01'. */
const firstDay = (month: string) => `${month}-01`;

const section = (page: Page, title: string) => page.getByRole('region', { name: title, exact: true });
const drawer = (page: Page) => page.getByRole('dialog', { name: 'Account settings' });
const attributes = (page: Page) => page.getByRole('region', { name: 'Custom attributes' });

async function openAccountSettings(page: Page): Promise<Locator> {
  await page.goto('/settings');
  await page.getByRole('button', { name: 'Edit account settings' }).click();
  await expect(drawer(page).getByLabel('Churn window')).toBeVisible();
  return drawer(page);
}

async function saveAccountSettings(page: Page): Promise<void> {
  await drawer(page).getByRole('button', { name: 'Save settings' }).click();
  await expect(drawer(page)).toBeHidden();
}

test('a longer churn window bridges a month without payments: the report no longer counts the customer as churned', async ({ page, request }) => {
  test.setTimeout(180_000);
  const owner = await signInAsNewOwner(page, request, 'churnwindow');
  const start = addMonths(current(), -8);
  // Paid for two months, nothing in the third, paid again from the fourth.
  const gap = addMonths(start, 3);
  const csv = [
    'customer_id,invoice_number,started_at,months,monthly_amount,currency',
    `gap-co,INV-1,${firstDay(addMonths(start, 1))},2,100.00,USD`,
    `gap-co,INV-2,${firstDay(addMonths(start, 4))},3,100.00,USD`,
  ].join('\n');
  await importPaymentsThroughApi(request, owner.token, `${csv}\n`, { mapping: { customer_id: 0, invoice_number: 1, started_at: 2, months: 3, monthly_amount: 4, currency: 5 } });
  const { secret } = await createReportThroughApi(request, owner.token, { title: 'Settings e2e', definitions: ['churned_customers'], from: start, to: addMonths(current(), -1) });

  await page.goto(`/reports/${secret}`);
  await untilUpToDate(page);
  const churned = section(page, 'Churned customers');
  await expect(await columnTooltip(churned, 3, gap)).toContainText('Churned customers: 1');

  const settings = await openAccountSettings(page);
  await expect(settings.getByLabel('Churn window')).toHaveValue('0');
  await settings.getByLabel('Churn window').fill('45');
  await saveAccountSettings(page);
  await expect(page.getByRole('region', { name: 'Account' }).getByText('45 days')).toBeVisible();

  await page.goto(`/reports/${secret}`);
  await untilUpToDate(page);
  await expect(await columnTooltip(section(page, 'Churned customers'), 3, gap)).toContainText('Churned customers: 0');
});

test('the account’s own exchange rates convert euro payments into the account currency', async ({ page, request }) => {
  test.setTimeout(180_000);
  const owner = await signInAsNewOwner(page, request, 'manualrates');
  const start = addMonths(current(), -4);
  const month = addMonths(start, 2);
  const csv = ['customer_id,invoice_number,started_at,months,monthly_amount,currency', `euro-co,INV-1,${firstDay(start)},6,100.00,EUR`].join('\n');
  await importPaymentsThroughApi(request, owner.token, `${csv}\n`, { mapping: { customer_id: 0, invoice_number: 1, started_at: 2, months: 3, monthly_amount: 4, currency: 5 } });
  const { secret } = await createReportThroughApi(request, owner.token, { title: 'Settings e2e', from: start, to: addMonths(current(), -1) });

  await page.goto(`/reports/${secret}`);
  await untilUpToDate(page);
  // The market rate of the day: anything but 2 dollars a euro.
  await expect(await pointTooltip(section(page, 'MRR'), 2, month)).toContainText('MRR: $');
  await expect(section(page, 'MRR').locator('.apexcharts-tooltip')).not.toContainText(`MRR: ${shownMoney(20_000, 'USD')}`);

  const settings = await openAccountSettings(page);
  await expect(page.getByRole('region', { name: 'Account' }).getByLabel('Account currency USD')).toBeVisible();
  await settings.getByRole('radio', { name: 'My own exchange rates' }).click();
  await settings.getByRole('button', { name: 'Add row' }).click();
  await settings.getByLabel('Since, row 1').fill('01-01-2000');
  // One dollar buys half a euro: 100 EUR are 200 USD.
  await settings.getByLabel('EUR rate, row 1').fill('0.5');
  await saveAccountSettings(page);
  await expect(page.getByRole('region', { name: 'Account' }).getByText('My own exchange rates')).toBeVisible();

  await page.goto(`/reports/${secret}`);
  await untilUpToDate(page);
  await expect(await pointTooltip(section(page, 'MRR'), 2, month)).toContainText(`MRR: ${shownMoney(20_000, 'USD')}`);

  // The drawer opens with the saved table.
  const reopened = await openAccountSettings(page);
  await expect(reopened.getByLabel('Since, row 1')).toHaveValue('01-01-2000');
  await expect(reopened.getByLabel('EUR rate, row 1')).toHaveValue('0.5');
});

test('custom attributes are added, renamed and deleted', async ({ page, request }) => {
  await signInAsNewOwner(page, request, 'attributes');
  await page.goto('/settings');
  await expect(attributes(page).getByText('No custom attributes yet')).toBeVisible();

  // Add: the name is required, then a customer attribute appears with its values import.
  await attributes(page).getByRole('button', { name: 'Add attribute' }).click();
  const add = page.getByRole('dialog', { name: 'Add attribute' });
  await add.getByRole('button', { name: 'Add attribute' }).click();
  await expect(add.getByText('Name is required')).toBeVisible();
  await add.getByLabel('Name').fill('Industry');
  await add.getByRole('combobox', { name: 'Object' }).click();
  await page.getByRole('option', { name: 'Customer', exact: true }).click();
  await add.getByRole('button', { name: 'Add attribute' }).click();
  await expect(add).toBeHidden();
  const industry = attributes(page).getByRole('listitem', { name: 'Industry' });
  await expect(industry.getByText('Customer', { exact: true })).toBeVisible();
  await expect(industry.getByRole('link', { name: 'Import attribute values of Industry' })).toHaveAttribute('href', /^\/import-segments\?segment=.+/);

  // Rename.
  await industry.getByRole('button', { name: 'Actions for Industry' }).click();
  await page.getByRole('menuitem', { name: 'Rename' }).click();
  const rename = page.getByRole('dialog', { name: 'Rename attribute' });
  await rename.getByLabel('Name').fill('Sector');
  await rename.getByRole('button', { name: 'Save' }).click();
  await expect(rename).toBeHidden();
  const sector = attributes(page).getByRole('listitem', { name: 'Sector' });
  await expect(sector).toBeVisible();
  await expect(attributes(page).getByRole('listitem', { name: 'Industry' })).toHaveCount(0);

  // Its values import names it.
  await sector.getByRole('link', { name: 'Import attribute values of Sector' }).click();
  await expect(page).toHaveURL(/\/import-segments\?segment=.+/);
  await expect(page.getByRole('combobox', { name: 'Attribute' })).toHaveValue('Sector');
  await page.goBack();

  // Delete, after a confirmation; a reload shows it gone.
  await attributes(page).getByRole('listitem', { name: 'Sector' }).getByRole('button', { name: 'Actions for Sector' }).click();
  await page.getByRole('menuitem', { name: 'Delete' }).click();
  await page.getByRole('dialog', { name: 'Delete attribute' }).getByRole('button', { name: 'Delete attribute' }).click();
  await expect(attributes(page).getByText('No custom attributes yet')).toBeVisible();
  await page.reload();
  await expect(attributes(page).getByText('No custom attributes yet')).toBeVisible();
});
