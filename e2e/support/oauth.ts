import type { Locator, Page } from '@playwright/test';
import { expect } from './test';

/**
 * Clicks an integration card's Connect and follows the OAuth round trip (the server, the
 * provider's fake consent page, the callback): the browser comes back to Settings with
 * `?integration={name}&status=connected`, which the page reads (a toast) and then removes from
 * the address at once. So the return is awaited as a navigation event, set up before the click,
 * not by polling the address, which could miss it; then the cleaned address.
 */
export async function connectThroughOAuth(page: Page, connect: Locator, name: string): Promise<void> {
  const back = page.waitForURL(new RegExp(`/settings\\?integration=${name}&status=connected$`), { waitUntil: 'commit' });
  await connect.click();
  await back;
  await expect(page).toHaveURL(/\/settings$/);
}
