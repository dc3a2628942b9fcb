import type { Page } from '@playwright/test';
import { newPerson, signInThroughForm, signUpThroughApi } from './support/auth';
import { expect, test } from './support/test';

/**
 * Section editing (issue 7): an editor adds a chart split by a segment, moves it, renames it and
 * removes its segment; after a reload the page shows what was saved. Each run works in a new
 * account of its own, on a report made through the API.
 */

const contents = (page: Page) => page.getByRole('navigation', { name: 'Contents' }).getByRole('link');
const section = (page: Page, title: string) => page.getByRole('region', { name: title, exact: true });

test('an editor adds a chart with a segment, moves it, renames it and removes the segment; a reload shows it all', async ({ page, request }) => {
  const owner = await signUpThroughApi(request, newPerson('sections'));
  const headers = { authorization: `Bearer ${owner.token}` };
  const created = await request.post('/api/v11/business_reports', { headers, data: { title: 'Sections e2e', sections: [{ definition_id: 'mrr' }, { definition_id: 'customers' }] } });
  expect(created.status()).toBe(201);
  const { secret } = (await created.json()) as { secret: string };

  await page.goto('/sign_in');
  await signInThroughForm(page, owner.email, owner.password);
  await expect(page).toHaveURL(/\/$/);
  await page.goto(`/reports/${secret}`);
  await expect(contents(page)).toHaveText(['MRR', 'Customers']);

  // Add chart: the search filters past 2 characters; ARR split by product.
  await page.getByRole('button', { name: 'Add chart' }).click();
  const dialog = page.getByRole('dialog', { name: 'Add chart' });
  await dialog.getByPlaceholder('Start typing metric name').fill('ARR');
  await dialog.getByRole('checkbox', { name: /^ARR/ }).check();
  await dialog.getByRole('group', { name: 'Segments of ARR' }).getByRole('checkbox', { name: /^Product/ }).check();
  await dialog.getByRole('button', { name: 'Add chart' }).click();
  await expect(dialog).toBeHidden();
  await expect(contents(page)).toHaveText(['MRR', 'Customers', 'ARR']);
  await expect(section(page, 'ARR')).toBeVisible();

  // Move it up: the last section cannot move down.
  await section(page, 'ARR').getByRole('button', { name: 'Section menu of ARR' }).click();
  await expect(page.getByRole('menuitem', { name: 'Move down' })).toBeDisabled();
  await page.getByRole('menuitem', { name: 'Move up' }).click();
  await expect(contents(page)).toHaveText(['MRR', 'ARR', 'Customers']);

  // Rename it in place.
  await section(page, 'ARR').getByRole('button', { name: 'Edit section title' }).click();
  await section(page, 'ARR').getByRole('textbox', { name: 'Section title' }).fill('Annual run rate');
  await section(page, 'ARR').getByRole('textbox', { name: 'Section title' }).press('Enter');
  await expect(page.getByRole('heading', { level: 2, name: 'Annual run rate' })).toBeVisible();

  // Its segment: listed, then removed.
  const renamed = section(page, 'Annual run rate');
  await renamed.getByRole('button', { name: 'Section menu of Annual run rate' }).click();
  await page.getByRole('menuitem', { name: 'Segments' }).click();
  const segments = page.getByRole('dialog', { name: 'Segments: Annual run rate' });
  await expect(segments.getByRole('listitem', { name: 'Product' })).toBeVisible();
  await segments.getByRole('button', { name: 'Remove segment Product' }).click();
  await expect(segments.getByText('This chart shows the total only. Add a segment to split it.')).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(segments).toBeHidden();

  // What a user sees after a reload: the order, the new title, and no segment on it.
  await page.reload();
  await expect(contents(page)).toHaveText(['MRR', 'Annual run rate', 'Customers']);
  await expect(page.getByRole('heading', { level: 2, name: 'Annual run rate' })).toBeVisible();
  await expect(section(page, 'Annual run rate')).toHaveAttribute('data-chart-state', 'drawn', { timeout: 20_000 });
  await expect(page.getByRole('combobox', { name: 'Segment of Annual run rate' })).toHaveCount(0);
  await section(page, 'Annual run rate').getByRole('button', { name: 'Section menu of Annual run rate' }).click();
  await page.getByRole('menuitem', { name: 'Segments' }).click();
  await expect(page.getByRole('dialog', { name: 'Segments: Annual run rate' }).getByText('This chart shows the total only. Add a segment to split it.')).toBeVisible();
});
