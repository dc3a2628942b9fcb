import type { APIRequestContext, Page } from '@playwright/test';
import { newPerson, signInThroughForm, signUpThroughApi } from './support/auth';
import { createMrrReport, importPaymentsThroughApi, monthStart, paymentsCsv, setCustomerAttributeThroughApi } from './support/seeding';
import { expect, test } from './support/test';

/**
 * Segmentation (issue 21): in an account of its own whose customers carry a numeric attribute
 * (Employees, set through the API), the owner makes a bucket segmentation of it in Settings,
 * then adds a chart split by it to a report and sees its buckets on the chart's legend.
 */

const CUSTOMERS = [
  { id: 'tiny-co', monthly: 100, employees: '5' },
  { id: 'mid-co', monthly: 200, employees: '40' },
  { id: 'big-co', monthly: 300, employees: '300' },
];

/** Payments imported from a CSV, the Employees attribute made and set on each customer, and a report with an MRR chart. */
async function seedAccount(request: APIRequestContext, token: string): Promise<{ secret: string }> {
  const from = monthStart(-6);
  await importPaymentsThroughApi(request, token, paymentsCsv(CUSTOMERS, from));
  await setCustomerAttributeThroughApi(request, token, 'Employees', Object.fromEntries(CUSTOMERS.map((c) => [c.id, c.employees])), from);
  return createMrrReport(request, token, 'Segmentation e2e');
}

const settingsSection = (page: Page) => page.getByRole('region', { name: 'Segmentation' });
const reportSection = (page: Page, title: string) => page.getByRole('region', { name: title, exact: true });

test('a bucket segmentation made in Settings splits a new chart into its buckets', async ({ page, request }) => {
  test.setTimeout(90_000);
  const owner = await signUpThroughApi(request, newPerson('segmentation'));
  const { secret } = await seedAccount(request, owner.token);

  await page.goto('/sign_in');
  await signInThroughForm(page, owner.email, owner.password);
  await expect(page).toHaveURL(/\/$/);

  // The report first: Add chart's segments of ARR have no segmentation yet (the list is now cached).
  await page.goto(`/reports/${secret}`);
  await page.getByRole('button', { name: 'Add chart' }).click();
  const dialog = page.getByRole('dialog', { name: 'Add chart' });
  await dialog.getByPlaceholder('Start typing metric name').fill('ARR');
  await dialog.getByRole('checkbox', { name: /^ARR/ }).check();
  const arrSegments = dialog.getByRole('group', { name: 'Segments of ARR' });
  await expect(arrSegments.getByRole('checkbox', { name: /^Employees/ })).toBeVisible();
  await expect(arrSegments.getByRole('checkbox', { name: /^Company size/ })).toHaveCount(0);
  await page.keyboard.press('Escape');
  await expect(dialog).toBeHidden();

  // Settings → Segmentation (in the app, no reload): none yet; make 'Company size' of Employees in ranges.
  await page.getByRole('button', { name: 'User menu' }).click();
  await page.getByRole('menuitem', { name: 'Settings' }).click();
  await expect(page).toHaveURL(/\/settings$/);
  const section = settingsSection(page);
  await expect(section.getByText('No segmentations yet')).toBeVisible();
  await section.getByRole('button', { name: 'New segmentation' }).click();
  const drawer = page.getByRole('dialog', { name: 'New segmentation' });
  await drawer.getByRole('textbox', { name: 'Name' }).fill('Company size');
  await drawer.getByRole('combobox', { name: 'Attribute' }).click();
  await page.getByRole('option', { name: 'Employees', exact: true }).click();
  await drawer.getByText('Ranges', { exact: true }).click();

  // A max below its min is refused with the spec's message.
  await drawer.getByRole('textbox', { name: 'Bucket 1 name' }).fill('Small');
  await drawer.getByRole('textbox', { name: 'Bucket 1 max' }).fill('9');
  await drawer.getByRole('button', { name: 'Add bucket' }).click();
  await expect(drawer.getByRole('textbox', { name: 'Bucket 2 min' })).toHaveValue('10');
  await drawer.getByRole('textbox', { name: 'Bucket 2 name' }).fill('Medium');
  await drawer.getByRole('textbox', { name: 'Bucket 2 max' }).fill('5');
  await drawer.getByRole('button', { name: 'Create segmentation' }).click();
  await expect(drawer.getByText('Max value can not be smaller than its min value')).toBeVisible();
  await drawer.getByRole('textbox', { name: 'Bucket 2 max' }).fill('99');
  await drawer.getByRole('button', { name: 'Create segmentation' }).click();
  await expect(drawer).toBeHidden();

  const created = section.getByRole('listitem', { name: 'Company size' });
  await expect(created.getByText('Employees · Customer attributes')).toBeVisible();
  await expect(created.getByRole('table', { name: 'Buckets of Company size' }).getByRole('row')).toHaveText(['BucketRange', 'Small0 - 9', 'Medium10 - 99', '> 99> 99']);

  // Back on the report (history, no reload): Add chart lists the new segmentation at once.
  await page.goBack();
  await expect(page).toHaveURL(new RegExp(`/reports/${secret}$`));
  await page.getByRole('button', { name: 'Add chart' }).click();
  await dialog.getByPlaceholder('Start typing metric name').fill('ARR');
  await dialog.getByRole('checkbox', { name: /^ARR/ }).check();
  await arrSegments.getByRole('checkbox', { name: /^Company size/ }).check();
  await dialog.getByRole('button', { name: 'Add chart' }).click();
  await expect(dialog).toBeHidden();

  // The new chart shows its buckets: each customer's ARR in its range.
  const chart = reportSection(page, 'ARR');
  await chart.scrollIntoViewIfNeeded();
  await expect(chart.getByRole('combobox', { name: 'Segment of ARR' })).toHaveValue('Company size', { timeout: 30_000 });
  await expect(chart).toHaveAttribute('data-chart-state', 'drawn', { timeout: 30_000 });
  const legend = chart.getByRole('group', { name: 'Legend' });
  await expect(legend.getByRole('button', { name: 'Small' })).toBeVisible();
  await expect(legend.getByRole('button', { name: 'Medium' })).toBeVisible();
  await expect(legend.getByRole('button', { name: '> 99' })).toBeVisible();
});
