import type { Page } from '@playwright/test';
import { expect } from './test';

/** The report page's 'Up to date' badge. */
export const upToDateBadge = (page: Page) => page.getByRole('main').locator('.mantine-Badge-root').filter({ hasText: /^Up to date$/ }).first();

/**
 * Waits until the open report shows its numbers up to date, recalculating it first when it says
 * it is outdated (its data changed after it was computed: another spec's import, or this one's).
 */
export async function untilUpToDate(page: Page): Promise<void> {
  const fresh = upToDateBadge(page);
  const outdated = page.getByRole('main').locator('.mantine-Badge-root').filter({ hasText: /^Outdated$/ }).first();
  await expect(fresh.or(outdated).first()).toBeVisible({ timeout: 60_000 });
  if (await outdated.isVisible()) {
    await page.getByRole('button', { name: 'Recalculate' }).click();
    await expect(fresh).toBeVisible({ timeout: 60_000 });
  }
}
