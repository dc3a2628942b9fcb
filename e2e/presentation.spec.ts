import type { Page } from '@playwright/test';
import { signInThroughForm } from './support/auth';
import { expect, test } from './support/test';

/**
 * Presentation mode (issue 19) on the shared server's demo report: only read, so any demo
 * report serves. The slideshow is walked with the keyboard, as a presenter does.
 */

const DEMO = { email: 'demo@subscope.dev', password: 'subscope-demo-2026' };

const slideshow = (page: Page) => page.getByRole('dialog', { name: 'Presentation' });
const shownSlide = (page: Page) => slideshow(page).locator('[aria-roledescription="slide"][aria-current="true"]');

test('presents a report with the keyboard, from the title slide to the close after the last slide', async ({ page }) => {
  test.setTimeout(120_000);
  await page.goto('/sign_in');
  await signInThroughForm(page, DEMO.email, DEMO.password);
  await expect(page).toHaveURL(/\/$/);
  await page.getByRole('link', { name: /^\d{4}-\d{2} business overview$/ }).click();
  const title = await page.getByRole('heading', { level: 1 }).innerText();
  const sections = page.getByRole('main').locator('section[id^="section-"]');
  await expect(sections.first()).toBeVisible({ timeout: 30_000 });
  const sectionCount = await sections.count();
  const total = sectionCount + 1;

  await page.getByRole('button', { name: 'Present' }).click();
  await expect(slideshow(page)).toBeVisible();
  // The keys, listed on entry.
  await expect(page.getByText('Presentation keys')).toBeVisible();
  await expect(shownSlide(page)).toHaveAttribute('aria-label', `Slide 1 of ${total}`);
  await expect(shownSlide(page).getByRole('heading', { name: title })).toBeVisible();
  await expect(shownSlide(page).getByRole('region', { name: 'Key numbers' })).toBeVisible();
  // The first section's chart is drawn before the presenter moves on.
  await expect(slideshow(page).locator('[data-slide-index="1"] .apexcharts-canvas')).toBeAttached({ timeout: 20_000 });

  await page.keyboard.press('ArrowRight');
  await expect(shownSlide(page)).toHaveAttribute('aria-label', `Slide 2 of ${total}`);
  await expect(shownSlide(page).getByRole('heading', { name: 'MRR', exact: true })).toBeVisible();
  await expect(shownSlide(page).locator('.apexcharts-canvas')).toBeVisible();
  // The chart of the slide after is drawn already.
  await expect(slideshow(page).locator('[data-slide-index="2"] .apexcharts-canvas, [data-slide-index="2"] table')).toBeAttached({ timeout: 20_000 });
  const box = await shownSlide(page).locator('.apexcharts-canvas').boundingBox();
  expect(box?.height).toBeGreaterThanOrEqual(450);

  await page.keyboard.press('ArrowLeft');
  await expect(shownSlide(page)).toHaveAttribute('aria-label', `Slide 1 of ${total}`);
  await page.keyboard.press('ArrowLeft');
  await expect(shownSlide(page)).toHaveAttribute('aria-label', `Slide 1 of ${total}`);
  await page.keyboard.press('Space');
  await expect(shownSlide(page)).toHaveAttribute('aria-label', `Slide 2 of ${total}`);

  for (let slide = 3; slide <= total; slide += 1) {
    await page.keyboard.press('ArrowRight');
    await expect(shownSlide(page)).toHaveAttribute('aria-label', `Slide ${slide} of ${total}`);
  }
  // Next on the last slide closes.
  await page.keyboard.press('ArrowRight');
  await expect(slideshow(page)).toBeHidden();
  await expect(page.getByRole('heading', { level: 1, name: title })).toBeVisible();

  // Esc leaves from anywhere.
  await page.getByRole('button', { name: 'Present' }).click();
  await page.keyboard.press('ArrowRight');
  await expect(shownSlide(page)).toHaveAttribute('aria-label', `Slide 2 of ${total}`);
  await page.keyboard.press('Escape');
  await expect(slideshow(page)).toBeHidden();
});
