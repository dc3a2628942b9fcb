import type { APIRequestContext, Locator, Page } from '@playwright/test';
import { newPerson, signInThroughForm, signUpThroughApi } from './support/auth';
import { amountOf, detailsFigures, openPoint } from './support/details';
import { createMrrReport, csvColumns, importPaymentsThroughApi, monthStart, paymentsCsv, setCustomerAttributeThroughApi } from './support/seeding';
import { expect, test } from './support/test';

/**
 * Custom sections (docs/custom-sections.md, docs/custom-section-editor.md): in an account of its
 * own, whose customers pay for a product (imported from a CSV through the import's mapping) and
 * carry a Country attribute (set through the API), the owner opens the section editor from
 * 'Add chart', builds two series split by Country (MRR, and MRR of the Pro product), sees the
 * preview, saves, finds the section on the report, and opens a point's details: the listed
 * customers add up to the point. The section's menu then leads back to its calculation.
 */

const CUSTOMERS = [
  { id: 'warsaw-pro', product: 'Pro', monthly: 300, country: 'Poland' },
  { id: 'krakow-basic', product: 'Basic', monthly: 100, country: 'Poland' },
  { id: 'berlin-pro', product: 'Pro', monthly: 500, country: 'Germany' },
  { id: 'munich-pro', product: 'Pro', monthly: 200, country: 'Germany' },
  { id: 'hamburg-basic', product: 'Basic', monthly: 50, country: 'Germany' },
];
const TITLE = 'MRR by country';

/**
 * The payments imported as the import page does (the file, then its mapping), the Country
 * attribute made and set on each customer, and a report with an MRR chart.
 */
async function seedAccount(request: APIRequestContext, token: string): Promise<{ secret: string }> {
  const from = monthStart(-6);
  const csv = paymentsCsv(CUSTOMERS, from);
  await importPaymentsThroughApi(request, token, csv, { mapping: Object.fromEntries(csvColumns(csv).map((column, index) => [column, index])) });
  await setCustomerAttributeThroughApi(request, token, 'Country', Object.fromEntries(CUSTOMERS.map((c) => [c.id, c.country])), from);
  return createMrrReport(request, token, 'Custom sections e2e');
}

/** Picks `option` of the combobox `field` (a Mantine Select or MultiSelect). */
async function pick(page: Page, field: Locator, option: string): Promise<void> {
  await field.click();
  await page.getByRole('option', { name: option, exact: true }).click();
}

test('an editor builds a two-series custom section split by country, and its point’s customers add up to it', async ({ page, request }) => {
  test.setTimeout(120_000);
  const owner = await signUpThroughApi(request, newPerson('custom'));
  const { secret } = await seedAccount(request, owner.token);

  await page.goto('/sign_in');
  await signInThroughForm(page, owner.email, owner.password);
  await expect(page).toHaveURL(/\/$/);
  await page.goto(`/reports/${secret}`);
  await expect(page.getByRole('navigation', { name: 'Contents' }).getByRole('link')).toHaveText(['MRR']);

  // Add chart → Custom section: the editor of a new section.
  await page.getByRole('button', { name: 'Add chart' }).click();
  const dialog = page.getByRole('dialog', { name: 'Add chart' });
  await dialog.getByRole('link', { name: /^Custom section/ }).click();
  await expect(page).toHaveURL(new RegExp(`/reports/${secret}/new-section$`));
  await expect(page.getByRole('heading', { level: 1, name: 'Add a chart section' })).toBeVisible();
  const form = page.getByRole('form', { name: 'Section calculation' });
  await expect(form).toBeVisible({ timeout: 20_000 });

  await form.getByRole('textbox', { name: 'Title' }).fill(TITLE);

  // Every series split by Country.
  const splits = form.getByRole('group', { name: 'Section splits' });
  await splits.getByRole('button', { name: 'Add split' }).click();
  await pick(page, splits.getByRole('combobox', { name: 'Section split 1' }), 'Country');

  // The first series is MRR as it comes; the second the MRR of the Pro product.
  const first = form.getByRole('group', { name: 'Series 1' });
  await expect(first.getByRole('textbox', { name: /^Name/ })).toHaveValue('MRR');
  await expect(first.getByRole('combobox', { name: /^Value/ })).toHaveValue('MRR');
  await form.getByRole('button', { name: 'Add series' }).click();
  const second = form.getByRole('group', { name: 'Series 2' });
  await second.getByRole('textbox', { name: /^Name/ }).fill('Pro MRR');
  await second.getByRole('button', { name: 'Add filter' }).click();
  const filter = second.getByRole('group', { name: 'Filter 1' });
  await pick(page, filter.getByRole('combobox', { name: 'Field' }), 'Product');
  await pick(page, filter.getByRole('combobox', { name: 'Operator' }), 'is one of');
  await pick(page, filter.getByRole('combobox', { name: 'Values' }), 'Pro');

  // The preview draws both series split by Country (as the report's card will), and in total.
  const preview = page.getByRole('region', { name: 'Preview' });
  const chart = preview.getByTestId('section-preview-chart');
  await expect(chart).toBeVisible({ timeout: 30_000 });
  await expect(preview).toHaveAttribute('aria-busy', 'false', { timeout: 30_000 });
  await expect(chart).not.toHaveAttribute('data-dimmed');
  const previewSegment = chart.getByRole('combobox', { name: 'Segment' });
  await expect(previewSegment).toHaveValue('Country');
  const previewLegend = chart.getByRole('group', { name: 'Legend' });
  await expect(previewLegend.getByRole('button', { name: 'MRR: Germany', exact: true })).toBeVisible();
  await expect(previewLegend.getByRole('button', { name: 'Pro MRR: Germany', exact: true })).toBeVisible();
  await expect(chart.locator('.apexcharts-marker').first()).toBeAttached({ timeout: 20_000 });
  await pick(page, previewSegment, 'Total');
  await expect(previewLegend.getByRole('button')).toHaveText(['MRR', 'Pro MRR']);

  // Saved: back on the report, the section last, under its title.
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(page).toHaveURL(new RegExp(`/reports/${secret}$`));
  await expect(page.getByRole('navigation', { name: 'Contents' }).getByRole('link')).toHaveText(['MRR', TITLE]);
  const section = page.getByRole('region', { name: TITLE, exact: true });
  await expect(section.getByRole('heading', { level: 2, name: TITLE })).toBeVisible();
  await section.scrollIntoViewIfNeeded();
  await expect(section.getByRole('combobox', { name: `Segment of ${TITLE}` })).toHaveValue('Country', { timeout: 30_000 });
  await expect(section).toHaveAttribute('data-chart-state', 'drawn', { timeout: 30_000 });

  // Only 'Pro MRR: Germany' drawn (the legend picks it), then its last complete month (the last point is the current month).
  const legend = section.getByRole('group', { name: 'Legend' });
  const proGermany = legend.getByRole('button', { name: 'Pro MRR: Germany', exact: true });
  await proGermany.click();
  await expect(proGermany).toHaveAttribute('aria-pressed', 'true');
  await expect(section.locator('.apexcharts-series')).toHaveCount(1);
  const markers = section.locator('.apexcharts-series .apexcharts-marker');
  await expect(markers.first()).toBeAttached({ timeout: 20_000 });
  const details = await openPoint(section, (await markers.count()) - 2, new RegExp(`^${TITLE}, \\d{4}-\\d{2}$`));

  // Its customers: the two German customers on Pro, adding up to the point.
  const { shown, listed } = await detailsFigures(details);
  expect(shown).toBe(700);
  expect(listed).toBe(shown);
  const rows = details.getByRole('table', { name: 'Customers' }).locator('tbody tr');
  await expect(rows).toHaveCount(3);
  await expect(rows.last()).toContainText(/^Total \(2 customers\)/);
  const names = (await rows.locator('td:first-child').allInnerTexts()).slice(0, -1).map((name) => name.trim());
  expect(names.sort()).toEqual(['berlin-pro', 'munich-pro']);
  const values: number[] = [];
  for (let k = 0; k < 2; k++) values.push(amountOf(await rows.nth(k).locator('td').last().innerText()));
  expect(values.reduce((sum, value) => sum + value, 0)).toBeCloseTo(shown, 2);
  expect(amountOf(await rows.last().locator('td').last().innerText())).toBeCloseTo(shown, 2);

  await details.getByRole('button', { name: 'Close details' }).click();
  await expect(details).toBeHidden();

  // Its chart settings offer a custom section's charts: as bars, drawn again once recalculated.
  await section.getByRole('button', { name: `Section menu of ${TITLE}` }).click();
  await page.getByRole('menuitem', { name: 'Chart settings' }).click();
  const settings = page.getByRole('dialog', { name: `Chart settings: ${TITLE}` });
  await pick(page, settings.getByRole('combobox', { name: 'Chart type' }), 'Bar chart');
  await settings.getByRole('button', { name: 'Save' }).click();
  await expect(settings).toBeHidden();
  await expect(section.locator('.apexcharts-bar-series')).toBeAttached({ timeout: 30_000 });

  // The section's menu leads back to its calculation, as saved.
  await section.getByRole('button', { name: `Section menu of ${TITLE}` }).click();
  await page.getByRole('menuitem', { name: 'Edit calculation' }).click();
  await expect(page).toHaveURL(new RegExp(`/reports/${secret}/new-section/[^/]+$`));
  await expect(page.getByRole('heading', { level: 1, name: 'Edit section calculation' })).toBeVisible();
  const saved = page.getByRole('form', { name: 'Section calculation' });
  await expect(saved.getByRole('group', { name: 'Section splits' }).getByRole('combobox', { name: 'Section split 1' })).toHaveValue('Country', { timeout: 20_000 });
  await expect(saved.getByRole('group', { name: 'Series 2' }).getByRole('textbox', { name: /^Name/ })).toHaveValue('Pro MRR');
  await expect(saved.getByRole('group', { name: 'Series 2' }).getByRole('group', { name: 'Filter 1' }).getByRole('combobox', { name: 'Field' })).toHaveValue('Product');
});
