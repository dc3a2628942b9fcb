import type { Locator } from '@playwright/test';
import { expect } from './test';

/**
 * Hovers a chart's data point `index` (its marker: a line's points, or the net line over the
 * movements' bars) and answers its tooltip, once it shows `periodLabel`. The section is
 * scrolled into view first, so it draws.
 */
export async function pointTooltip(region: Locator, index: number, periodLabel: string): Promise<Locator> {
  await region.scrollIntoViewIfNeeded();
  await expect(region).toHaveAttribute('data-chart-state', 'drawn', { timeout: 20_000 });
  const tooltip = region.locator('.apexcharts-tooltip');
  // A chart redrawn under the mouse (new data, its animation) moves its points: hover again until the tooltip names the period.
  await expect(async () => {
    await region.page().mouse.move(0, 0);
    await region.locator('.apexcharts-marker').nth(index).hover({ force: true });
    await expect(tooltip.locator('.apexcharts-tooltip-title')).toHaveText(periodLabel, { timeout: 1_000 });
  }).toPass({ timeout: 15_000 });
  return tooltip;
}

/**
 * The tooltip of data point `index` (its period `label`), pointing at the point's column at the
 * plot's mid-height rather than at its marker, so a point drawn on the plot's top edge (the
 * largest value) shows too. A chart redrawn under the pointer moves its points: point again until
 * the tooltip names the period.
 */
export async function columnTooltip(region: Locator, index: number, label: string): Promise<Locator> {
  await region.scrollIntoViewIfNeeded();
  await expect(region).toHaveAttribute('data-chart-state', 'drawn', { timeout: 20_000 });
  const page = region.page();
  const tooltip = region.locator('.apexcharts-tooltip');
  await expect(async () => {
    const marker = await region.locator('.apexcharts-marker').nth(index).boundingBox();
    const grid = await region.locator('.apexcharts-grid').first().boundingBox();
    if (!marker || !grid) throw new Error('the chart is not drawn yet');
    await page.mouse.move(0, 0);
    await page.mouse.move(marker.x + marker.width / 2, grid.y + grid.height / 2);
    await expect(tooltip.locator('.apexcharts-tooltip-title')).toHaveText(label, { timeout: 1_000 });
  }).toPass({ timeout: 15_000 });
  return tooltip;
}
