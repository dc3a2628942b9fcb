import type { Locator } from '@playwright/test';
import { expect } from './test';

/** '$12,345.67' → 12345.67 (any currency sign, thousands separators). */
export function amountOf(text: string): number {
  const cleaned = text.replace(/[^0-9.-]/g, '');
  const value = Number(cleaned);
  if (cleaned === '' || Number.isNaN(value)) throw new Error(`not an amount: '${text}'`);
  return value;
}

/** Clicks data point `index` of a line chart's section until the details dialog `name` opens. */
export async function openPoint(region: Locator, index: number, name: RegExp): Promise<Locator> {
  await region.scrollIntoViewIfNeeded();
  await expect(region).toHaveAttribute('data-chart-state', 'drawn', { timeout: 20_000 });
  const page = region.page();
  const dialog = page.getByRole('dialog', { name });
  // A chart still animating moves its markers: click again until the dialog is there.
  await expect(async () => {
    await region.locator('.apexcharts-marker').nth(index).click({ force: true });
    await expect(dialog).toBeVisible({ timeout: 2_000 });
  }).toPass({ timeout: 20_000 });
  return dialog;
}

/** The details dialog's two figures: the value the chart shows and the listed rows' total. */
export async function detailsFigures(dialog: Locator): Promise<{ shown: number; listed: number }> {
  const table = dialog.getByRole('table').first();
  await expect(table).toBeVisible({ timeout: 30_000 });
  const shown = amountOf(await dialog.getByRole('group', { name: 'Value on the chart' }).locator('strong').innerText());
  const listed = amountOf(await dialog.getByRole('group', { name: 'Listed total' }).locator('strong').innerText());
  return { shown, listed };
}
