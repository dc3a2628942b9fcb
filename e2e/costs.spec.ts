import type { APIRequestContext, Page } from '@playwright/test';
import { signInAsNewOwner } from './support/auth';
import { expect, test } from './support/test';

/**
 * The Costs page in its own account: a cost added, edited and deleted through the page, and the
 * costs section of a report following each change (read through the report's secret link, as
 * its page reads it, once it has recalculated).
 */

const today = new Date().toISOString().slice(0, 10);
const [year, month, day] = today.split('-') as [string, string, string];
const typedToday = `${day}-${month}-${year}`;

interface Section {
  definition_id: string;
  segments: { is_total: boolean; series: { data_points: { value: number | null }[] }[] }[];
}

/** The costs section's value this month, in minor units. */
async function costsThisMonth(request: APIRequestContext, token: string, secret: string): Promise<number | null> {
  const answer = await request.get(`/api/v11/business_reports/by_secret?secret=${secret}`, { headers: { authorization: `Bearer ${token}` } });
  const body = (await answer.json()) as { recalculation_status: string; sections: Section[] };
  if (body.recalculation_status !== 'recalculated') return null;
  const costs = body.sections.find((section) => section.definition_id === 'costs');
  return costs?.segments.find((segment) => segment.is_total)?.series[0]?.data_points.at(-1)?.value ?? null;
}

const drawer = (page: Page, name: string) => page.getByRole('dialog', { name });

test('adds, edits and deletes a cost, and the costs section of a report follows', async ({ page, request }) => {
  test.setTimeout(180_000);
  const owner = await signInAsNewOwner(page, request, 'costs');
  const created = await request.post('/api/v11/business_reports', { headers: { authorization: `Bearer ${owner.token}` }, data: { title: 'Costs e2e', sections: [{ definition_id: 'costs' }] } });
  expect(created.status()).toBe(201);
  const { secret } = (await created.json()) as { secret: string };
  const section = () => costsThisMonth(request, owner.token, secret);
  await expect.poll(section, { timeout: 60_000 }).toBe(0);

  await page.goto('/costs');
  await expect(page.getByText('Start by adding new costs records')).toBeVisible();
  await page.getByRole('button', { name: 'New costs' }).first().click();
  const form = drawer(page, 'New costs');
  await form.getByRole('button', { name: 'Add cost' }).click();
  await expect(form.getByText('Cost value is required')).toBeVisible();
  await expect(form.getByText('Date is required')).toBeVisible();
  await form.getByLabel('Value').fill('1200.20');
  await form.getByLabel(/^Date/).fill(typedToday);
  await form.getByLabel('Invoice number').fill('FV/E2E/1');
  await form.getByLabel('Name').fill('Ads');
  await form.getByRole('button', { name: 'Add cost' }).click();
  await expect(form).toBeHidden();
  const row = page.getByRole('table', { name: 'Costs' }).getByRole('row').filter({ hasText: 'FV/E2E/1' });
  await expect(row).toContainText('$1,200.20');
  await expect(row).toContainText(typedToday);
  await expect.poll(section, { timeout: 60_000 }).toBe(120_020);

  await row.getByRole('button', { name: 'Actions of the cost FV/E2E/1' }).click();
  await page.getByRole('menuitem', { name: 'Edit' }).click();
  const edit = drawer(page, 'Edit cost');
  await expect(edit.getByLabel('Value')).toHaveValue('1200.20');
  await edit.getByLabel('Value').fill('300');
  await edit.getByRole('button', { name: 'Save cost' }).click();
  await expect(edit).toBeHidden();
  await expect(row).toContainText('$300.00');
  await expect.poll(section, { timeout: 60_000 }).toBe(30_000);

  await row.getByRole('button', { name: 'Actions of the cost FV/E2E/1' }).click();
  await page.getByRole('menuitem', { name: 'Delete' }).click();
  await drawer(page, 'Delete cost').getByRole('button', { name: 'Delete cost' }).click();
  await expect(page.getByText('Start by adding new costs records')).toBeVisible();
  await expect.poll(section, { timeout: 60_000 }).toBe(0);
});
