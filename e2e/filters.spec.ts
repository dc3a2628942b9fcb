import type { Locator, Page } from '@playwright/test';
import { signInThroughForm } from './support/auth';
import { addMonths } from './support/demoNumbers';
import { detailsFigures, openPoint } from './support/details';
import { removeDataDir, startServer, type RunningServer } from './support/server';
import { upToDateBadge } from './support/reportState';
import { expect, test } from './support/test';
import { FILTER_BLOCKED } from '../models/reportFilter';

/**
 * Report filters and views (issue 18) on the demo account of a server of its own (the tests
 * import payments and save a view, which other specs must not see). The demo business has a
 * time-sensitive 'Plan' segment (Starter, Growth, Pro, Enterprise, Free) and products named
 * 'Starter plan', 'Growth plan', ...
 *
 * Numbers are read where a user reads them: the MRR chart's point of the last complete month,
 * through the details dialog ('Value on the chart', and the listed customers' total).
 */

const DEMO = { email: 'demo@subscope.dev', password: 'subscope-demo-2026' };
const MRR_POINT = /^MRR, \d{4}-\d{2}$/;

const own: { starting?: Promise<RunningServer>; server?: RunningServer; dataDir?: string } = {};
test.beforeAll(() => {
  own.starting = startServer({ env: { SKIP_SPA_BUILD: 'true' } });
  own.starting.then(
    (server) => {
      own.server = server;
      own.dataDir = server.dataDir;
    },
    () => undefined,
  );
});
test.afterAll(async () => {
  await own.starting?.catch(() => undefined);
  await own.server?.stop('SIGKILL');
  if (own.dataDir) removeDataDir(own.dataDir);
});

test.describe.configure({ mode: 'serial' });

const origin = () => {
  if (!own.server) throw new Error('the server of its own is not running');
  return own.server.url;
};

async function openBusinessOverview(page: Page): Promise<void> {
  await page.goto(`${origin()}/sign_in`);
  await signInThroughForm(page, DEMO.email, DEMO.password);
  await expect(page).toHaveURL(/\/$/);
  await page.getByRole('link', { name: /^\d{4}-\d{2} business overview$/ }).click();
  await expect(page).toHaveURL(/\/reports\/[A-Za-z0-9]{32}$/);
  await expect(upToDateBadge(page)).toBeVisible({ timeout: 60_000 });
}

const mrrSection = (page: Page) => page.getByRole('region', { name: 'MRR', exact: true });
const picker = (page: Page) => page.getByRole('dialog', { name: 'Filter report' });

/** The MRR chart's point of the last complete month (the last point is the current month), as the details dialog shows it. */
async function mrrOfLastCompleteMonth(page: Page): Promise<{ shown: number; listed: number }> {
  const mrr = mrrSection(page);
  const markers = mrr.locator('.apexcharts-marker');
  await expect(markers.first()).toBeAttached({ timeout: 20_000 });
  const dialog = await openPoint(mrr, (await markers.count()) - 2, MRR_POINT);
  const figures = await detailsFigures(dialog);
  await dialog.getByRole('button', { name: 'Close details' }).click();
  await expect(dialog).toBeHidden();
  return figures;
}

/** Presses `key` with nothing focused (a hot key; not typed into a field). */
async function pressOnPage(page: Page, key: string): Promise<void> {
  await page.evaluate(() => (document.activeElement instanceof HTMLElement ? document.activeElement.blur() : undefined));
  await page.keyboard.press(key);
}

/** Opens the picker with Shift+F and applies the option `name` (negated: 'is not'). */
async function filterBy(page: Page, text: string, option: string, negated = false): Promise<void> {
  await pressOnPage(page, 'Shift+F');
  const dialog = picker(page);
  await expect(dialog).toBeVisible();
  await dialog.getByRole('combobox', { name: 'Search filters' }).fill(text);
  if (negated) await dialog.getByRole('switch', { name: 'Exclude' }).check({ force: true });
  await dialog.getByRole('option', { name: option, exact: true }).click();
  await expect(dialog).toBeHidden();
}

/**
 * The active filter row says `label`, its loader is gone (the filtered sections have arrived: the
 * label shows as soon as the filter is chosen, over the charts of before), and the charts are drawn.
 */
async function filteredBy(page: Page, label: string): Promise<Locator> {
  const active = page.getByRole('status', { name: 'Active filter' });
  await expect(active.getByText(label, { exact: true })).toBeVisible({ timeout: 30_000 });
  await expect(active.getByLabel('Applying filter')).toHaveCount(0, { timeout: 30_000 });
  await expect(mrrSection(page)).toHaveAttribute('data-chart-state', 'drawn', { timeout: 20_000 });
  return active;
}

async function clearFilter(page: Page): Promise<void> {
  await page.getByRole('button', { name: 'Clear filter' }).click();
  await expect(page.getByRole('button', { name: 'Clear filter' })).toHaveCount(0);
  await expect(mrrSection(page)).toHaveAttribute('data-chart-state', 'drawn', { timeout: 20_000 });
}

test.describe('report filters on the seeded demo account', () => {
  // eslint-disable-next-line no-empty-pattern -- Playwright reads the fixture arguments from the pattern
  test.beforeAll(async ({}, testInfo) => {
    testInfo.setTimeout(120_000);
    await own.starting;
  });

  test('Shift+F filters by a plan: the chart shows what the details list, and the plan and the rest add up to the total', async ({ page }) => {
    test.setTimeout(120_000);
    await openBusinessOverview(page);
    const total = await mrrOfLastCompleteMonth(page);
    expect(total.shown).toBeGreaterThan(0);

    await filterBy(page, 'grow', 'Growth');
    await filteredBy(page, 'Plan is Growth');
    const growth = await mrrOfLastCompleteMonth(page);
    expect(growth.shown).toBeGreaterThan(0);
    expect(growth.shown).toBeLessThan(total.shown);
    // The details of a filtered chart list the filtered customers: they add up to the point.
    expect(Math.abs(growth.listed - growth.shown)).toBeLessThanOrEqual(0.5);

    await clearFilter(page);
    expect((await mrrOfLastCompleteMonth(page)).shown).toBe(total.shown);

    await filterBy(page, 'growth', 'Growth', true);
    await filteredBy(page, 'Plan is not Growth');
    const rest = await mrrOfLastCompleteMonth(page);
    // Each point is rounded to the whole unit.
    expect(Math.abs(growth.shown + rest.shown - total.shown)).toBeLessThanOrEqual(1);
    await clearFilter(page);
  });

  test('a negated product filter leaves out that product’s MRR', async ({ page }) => {
    test.setTimeout(120_000);
    await openBusinessOverview(page);
    const total = await mrrOfLastCompleteMonth(page);
    await filterBy(page, 'pro plan', 'Pro plan');
    await filteredBy(page, 'Product is Pro plan');
    const pro = await mrrOfLastCompleteMonth(page);
    expect(pro.shown).toBeGreaterThan(0);
    await clearFilter(page);
    await filterBy(page, 'pro plan', 'Pro plan', true);
    await filteredBy(page, 'Product is not Pro plan');
    const others = await mrrOfLastCompleteMonth(page);
    expect(others.shown).toBeLessThan(total.shown);
    expect(Math.abs(pro.shown + others.shown - total.shown)).toBeLessThanOrEqual(1);
    await clearFilter(page);
  });

  test('while recalculating, the filter is refused with the spec’s warning', async ({ page }) => {
    await openBusinessOverview(page);
    // The refresh request is held until the warning was seen, so the report is surely recalculating.
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    await page.route('**/api/v11/business_reports/*/refresh', async (route) => {
      await released;
      await route.continue();
    });
    await page.getByRole('button', { name: 'Recalculate' }).click();
    await pressOnPage(page, 'Shift+F');
    await expect(page.getByText(FILTER_BLOCKED)).toBeVisible();
    await expect(picker(page)).toBeHidden();
    await page.getByRole('button', { name: 'Filter' }).click();
    await expect(picker(page)).toBeHidden();
    release();
    await expect(upToDateBadge(page)).toBeVisible({ timeout: 60_000 });
  });

  test('while filtered, a recalculation in the background is held until the filter is cleared', async ({ page }) => {
    test.setTimeout(150_000);
    await openBusinessOverview(page);
    const before = await mrrOfLastCompleteMonth(page);

    await filterBy(page, 'grow', 'Growth');
    await filteredBy(page, 'Plan is Growth');
    const growth = await mrrOfLastCompleteMonth(page);

    // Another client imports a customer without a plan paying 5,000 a month around that month,
    // then recalculates the report: this page hears every update live.
    const signIn = await page.request.post(`${origin()}/api/v11/users/sign_in`, { data: { user: DEMO } });
    expect(signIn.status()).toBe(200);
    const headers = { authorization: signIn.headers()['authorization'] ?? '' };
    const month = addMonths(new Date().toISOString().slice(0, 7), -1);
    const csv = `customer_id,started_at,ended_at,monthly_amount\ne2e-filter-held,${addMonths(month, -1)}-01,${addMonths(month, 2)}-01,5000\n`;
    const upload = await page.request.post(`${origin()}/api/v11/subscriptions/csv_import`, {
      headers,
      multipart: { column_order: 'customer_id,started_at,ended_at,monthly_amount', paying_customers: { name: 'held.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) } },
    });
    expect(upload.status()).toBe(200);
    const { id } = (await upload.json()) as { id: string };
    await expect
      .poll(async () => ((await (await page.request.get(`${origin()}/api/v11/subscriptions/csv_import/${id}`, { headers })).json()) as { status: string }).status, { timeout: 30_000 })
      .toBe('done');
    // The page hears that its data changed (the report turns outdated and stays so until recalculated).
    await expect(page.getByRole('main').locator('.mantine-Badge-root').filter({ hasText: /^Outdated$/ }).first()).toBeVisible({ timeout: 30_000 });
    const secret = await page.evaluate(() => location.pathname.split('/').pop() ?? '');
    const { id: report } = (await (await page.request.get(`${origin()}/api/v11/business_reports/by_secret?secret=${secret}`, { headers })).json()) as { id: string };
    expect((await page.request.post(`${origin()}/api/v11/business_reports/${report}/refresh`, { headers })).status()).toBeLessThan(300);

    // The recalculation runs and ends (the badge is up to date again), while the filtered chart stays as it was.
    await expect(upToDateBadge(page)).toBeVisible({ timeout: 60_000 });
    await expect(page.getByRole('status', { name: 'Active filter' }).getByText('Plan is Growth', { exact: true })).toBeVisible();
    expect((await mrrOfLastCompleteMonth(page)).shown).toBe(growth.shown);

    // Cleared: the report comes back with the held updates applied, the imported 5,000 in it.
    await clearFilter(page);
    const after = await mrrOfLastCompleteMonth(page);
    expect(Math.abs(after.shown - (before.shown + 5000))).toBeLessThanOrEqual(1);
  });

  test('a saved view filters the report for everyone who opens it, after a reload too', async ({ page }) => {
    test.setTimeout(150_000);
    await openBusinessOverview(page);
    await filterBy(page, 'grow', 'Growth');
    await filteredBy(page, 'Plan is Growth');
    const growth = await mrrOfLastCompleteMonth(page);
    await clearFilter(page);

    await page.getByRole('button', { name: 'Create view' }).click();
    const drawer = page.getByRole('dialog', { name: 'Define report view' });
    await expect(drawer).toBeVisible();
    const save = drawer.getByRole('button', { name: 'Save view' });
    // A new view starts with one empty condition: Save waits for it to be complete.
    await expect(save).toBeDisabled();
    await drawer.getByRole('combobox', { name: 'Filter by' }).click();
    await page.getByRole('option', { name: 'Segment', exact: true }).click();
    await drawer.getByRole('combobox', { name: 'Segment' }).click();
    await page.getByRole('option', { name: 'Plan', exact: true }).click();
    await expect(save).toBeDisabled();
    await drawer.getByRole('combobox', { name: 'Value' }).fill('Growth');
    await page.getByRole('option', { name: 'Growth', exact: true }).click();
    await expect(save).toBeEnabled();
    await save.click();
    await expect(drawer).toBeHidden();
    await expect(upToDateBadge(page)).toBeVisible({ timeout: 60_000 });

    await page.reload();
    await expect(upToDateBadge(page)).toBeVisible({ timeout: 60_000 });
    await expect(page.getByRole('status', { name: 'Active filter' }).getByText(/View: Plan is Growth/)).toBeVisible();
    await expect(page.getByRole('button', { name: 'Edit view' })).toBeVisible();
    expect((await mrrOfLastCompleteMonth(page)).shown).toBe(growth.shown);
  });
});
