import type { APIRequestContext, Locator, Page } from '@playwright/test';
import { copyFileSync } from 'node:fs';
import { signInThroughForm } from './support/auth';
import { addMonths, demoNumbers, shownMoney, type DemoNumbers } from './support/demoNumbers';
import { removeDataDir, startServer, type RunningServer } from './support/server';
import { pointTooltip } from './support/charts';
import { horizontalOverflow, seenColours, type SeenColours } from './support/colors';
import { expect, test } from './support/test';
import { MONTH_LABELS, RANGE_BEYOND_CURRENT_MONTH, RANGE_FROM_AFTER_TO, RANGE_TOO_LONG, RANGE_TOO_SHORT } from '../models/reportRange';
import { YEAR_OPTIONS_FIRST } from '../models/constants';

/**
 * The report page (issue 6, "Reports") on the demo account, which `npm start` seeds with two
 * reports over the last 24 months ('… business overview', '… customer success overview').
 *
 * The numbers on the charts are checked against the demo generator's payments, read apart from
 * the product (e2e/support/demoNumbers.ts). Other specs write to the shared server's demo
 * account (imports), so the tests that read its numbers or freshness, change a report (range,
 * currency) or kill the server use a server of their own, on its own data directory (it seeds
 * its own demo account); only the public demo, which reads titles, uses the shared server.
 */

const DEMO = { email: 'demo@subscope.dev', password: 'subscope-demo-2026' };
const LOST_NOTICE = 'Connection lost. Trying to reconnect…';
const REESTABLISHED_NOTICE = 'Connection re-established';
const COLOR_SCHEME_KEY = 'subscope.colorScheme';

/** Today's month and the last complete one, as 'YYYY-MM' (the run is in UTC, as the server). */
function months() {
  const current = new Date().toISOString().slice(0, 7);
  return { current, lastComplete: addMonths(current, -1) };
}

/** 'YYYY-MM' as the range picker's month and year options. */
function pickerMonth(month: string): { month: string; year: string } {
  return { month: MONTH_LABELS[Number(month.slice(5, 7)) - 1] as string, year: month.slice(0, 4) };
}

async function signInAsDemo(page: Page, origin = ''): Promise<void> {
  await page.goto(`${origin}/sign_in`);
  await signInThroughForm(page, DEMO.email, DEMO.password);
  await expect(page).toHaveURL(/\/$/);
}

/**
 * The day the server seeded its demo account (the generator's "today"): the day its reports
 * were made, in the same transaction. The payment count the server holds must be the
 * generator's for that day, which shows the generator gives the seeded business.
 */
async function seededDemo(request: APIRequestContext, origin: string): Promise<DemoNumbers> {
  const signIn = await request.post(`${origin}/api/v11/users/sign_in`, { data: { user: DEMO } });
  expect(signIn.status()).toBe(200);
  const headers = { authorization: signIn.headers()['authorization'] ?? '' };
  const { items } = (await (await request.get(`${origin}/api/v11/business_reports/latest`, { headers })).json()) as { items: { title: string; created_at: string }[] };
  const seeded = items.find((item) => item.title.endsWith(' business overview'));
  if (!seeded) throw new Error(`the demo account has no business overview: ${items.map((item) => item.title).join(', ')}`);
  const numbers = demoNumbers(seeded.created_at.slice(0, 10));
  const { count } = (await (await request.get(`${origin}/api/v11/test/payment_count`, { headers })).json()) as { count: number };
  expect(count, 'payments the server holds = payments the generator makes for the seed day').toBe(numbers.business.payments.length);
  return numbers;
}

/** Opens the demo report whose title ends with `suffix` from the reports list. */
async function openReport(page: Page, suffix: string): Promise<void> {
  const link = page.getByRole('link', { name: new RegExp(`^\\d{4}-\\d{2} ${suffix}$`) });
  await expect(link).toHaveCount(1);
  await link.click();
  await expect(page).toHaveURL(/\/reports\/[A-Za-z0-9]{32}$/);
  await expect(page.getByRole('heading', { level: 1, name: new RegExp(`${suffix}$`) })).toBeVisible();
}

const section = (page: Page, title: string) => page.getByRole('region', { name: title, exact: true });

/** Every section's chart drawn (again, after a theme or size change) and no longer animating. */
async function chartsStandStill(page: Page, sections: Locator): Promise<void> {
  for (const card of await sections.all()) await expect(card).toHaveAttribute('data-chart-state', 'drawn', { timeout: 15_000 });
  await expect(page.locator('main .apexcharts-canvas')).toHaveCount(await sections.count());
  let previous = '';
  await expect
    .poll(async () => {
      const now = await page.locator('main .apexcharts-series path').evaluateAll((paths) => paths.map((p) => p.getAttribute('d')).join('|'));
      const still = now === previous;
      previous = now;
      return still;
    })
    .toBe(true);
}


/** Index of month `month` on a report whose range starts at `start` ('YYYY-MM'). */
function pointIndex(start: string, month: string): number {
  const [sy, sm] = start.split('-').map(Number) as [number, number];
  const [y, m] = month.split('-').map(Number) as [number, number];
  return (y - sy) * 12 + (m - sm);
}

/** The range button's label ('Dec 2024 – Nov 2026') as its first month 'YYYY-MM'. */
async function rangeStart(page: Page): Promise<string> {
  const label = (await page.getByRole('button', { name: 'Report range' }).innerText()).trim();
  const match = /^([A-Z][a-z]{2}) (\d{4}) – /.exec(label);
  if (!match) throw new Error(`unexpected range label '${label}'`);
  const month = MONTH_LABELS.indexOf(match[1] as (typeof MONTH_LABELS)[number]) + 1;
  return `${match[2]}-${String(month).padStart(2, '0')}`;
}

/**
 * Passes the page's live channel through, and on `hold()` keeps BusinessReportChannel's
 * messages back until `release()`, so what the page shows while it waits for a recalculation
 * can be looked at whatever the server's speed. Order is kept.
 */
async function reportChannel(page: Page) {
  let holding = false;
  const held: Array<() => void> = [];
  await page.routeWebSocket(/\/cable\?/, (ws) => {
    const server = ws.connectToServer();
    ws.onMessage((frame) => server.send(frame));
    server.onMessage((frame) => {
      const parsed = JSON.parse(String(frame)) as { type?: string; identifier?: string; message?: unknown };
      if (holding && parsed.type === undefined && parsed.identifier?.includes('BusinessReportChannel') && parsed.message) held.push(() => ws.send(frame));
      else ws.send(frame);
    });
  });
  return {
    hold: () => {
      holding = true;
    },
    held: () => held.length,
    release: () => {
      holding = false;
      for (const send of held.splice(0)) send();
    },
  };
}

/** The action bar's freshness badge ('Up to date', 'Recalculating', 'Outdated'). */
const freshnessBadge = (page: Page, text: string) => page.getByRole('main').locator('.mantine-Badge-root').filter({ hasText: new RegExp(`^${text}$`) });
const recalculatingCallout = (page: Page) => page.getByRole('status').filter({ hasText: 'The report is being recalculated' });

/** The page shows a recalculation running: the badge, the callout and every section's spinner. */
async function expectRecalculating(page: Page, titles: readonly string[]): Promise<void> {
  await expect(freshnessBadge(page, 'Recalculating')).toBeVisible();
  await expect(recalculatingCallout(page)).toBeVisible();
  for (const title of titles) await expect(page.getByLabel(`Recalculating ${title}`, { exact: true })).toBeVisible();
}

async function expectRecalculated(page: Page, titles: readonly string[]): Promise<void> {
  await expect(freshnessBadge(page, 'Up to date')).toBeVisible({ timeout: 30_000 });
  await expect(freshnessBadge(page, 'Recalculating')).toBeHidden();
  await expect(recalculatingCallout(page)).toBeHidden();
  for (const title of titles) await expect(page.getByLabel(`Recalculating ${title}`, { exact: true })).toBeHidden();
}

const sectionTitles = (page: Page) => page.locator('main section[aria-label]').evaluateAll((sections) => sections.map((s) => s.getAttribute('aria-label') ?? ''));

/**
 * The server of its own: started when the file starts and seeded in the background while the
 * shared-server tests run (seeding and computing the demo take some 20 s); stopped at the end.
 * SKIP_SPA_BUILD: it serves the SPA global setup built.
 */
const OWN_ENV = { SKIP_SPA_BUILD: 'true' };
const own: { starting?: Promise<RunningServer>; server?: RunningServer; dataDir?: string } = {};

test.beforeAll(() => {
  own.starting = startServer({ env: OWN_ENV });
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

test.describe('report page on the seeded demo account', () => {
  test('the public demo shows a demo report to a visitor who is not signed in, and keeps their title in their browser', async ({ browser, request, baseURL }) => {
    const signIn = await request.post(`${baseURL ?? ''}/api/v11/users/sign_in`, { data: { user: DEMO } });
    const headers = { authorization: signIn.headers()['authorization'] ?? '' };
    const { items } = (await (await request.get(`${baseURL ?? ''}/api/v11/business_reports/latest`, { headers })).json()) as { items: { title: string; secret: string }[] };
    const overview = items.find((item) => item.title.endsWith(' business overview'));
    if (!overview) throw new Error('the demo account has no business overview');

    // A visitor: a context of its own, never signed in.
    const visitor = await browser.newContext();
    try {
      const page = await visitor.newPage();
      await page.goto(`/demo/${overview.secret}`);
      await expect(page.getByRole('heading', { level: 1, name: overview.title })).toBeVisible();
      await expect(page.getByText('A demo report')).toBeVisible();
      await expect(section(page, 'MRR')).toHaveAttribute('data-chart-state', 'drawn', { timeout: 20_000 });
      await expect(page.getByRole('button', { name: 'Recalculate' })).toHaveCount(0);
      await expect(page).toHaveURL(new RegExp(`/demo/${overview.secret}$`));

      await page.getByRole('button', { name: 'Edit title' }).click();
      await page.getByRole('textbox', { name: 'Title' }).fill('My board deck');
      await page.getByRole('textbox', { name: 'Title' }).press('Enter');
      await expect(page.getByRole('heading', { level: 1, name: 'My board deck' })).toBeVisible();
      await page.reload();
      await expect(page.getByRole('heading', { level: 1, name: 'My board deck' })).toBeVisible();
    } finally {
      await visitor.close();
    }
    // The server's report is as it was: the edit stayed in the visitor's browser.
    const after = (await (await request.get(`${baseURL ?? ''}/api/v11/business_reports/latest`, { headers })).json()) as { items: { secret: string; title: string }[] };
    expect(after.items.find((item) => item.secret === overview.secret)?.title).toBe(overview.title);
  });

});

test.describe('report page on a server of its own', () => {
  // eslint-disable-next-line no-empty-pattern -- Playwright reads the fixture arguments from the pattern
  test.beforeAll(async ({}, testInfo) => {
    testInfo.setTimeout(120_000);
    await own.starting;
  });
  const origin = () => {
    if (!own.server) throw new Error('the server of its own is not running');
    return own.server.url;
  };

  test('a demo report opened from the list shows MRR and MRR movements with the demo’s numbers', async ({ page, request }) => {
    const demo = await seededDemo(request, origin());
    const { lastComplete } = months();
    const mrr = demo.mrr(lastComplete, 'USD');
    const newBusiness = demo.newBusiness(lastComplete, 'USD');
    // Sanity of the reading itself: a business of 1,600 customers has MRR, and new business in a month.
    expect(mrr).toBeGreaterThan(0);
    expect(newBusiness).toBeGreaterThan(0);

    await signInAsDemo(page, origin());
    await expect(page.getByRole('link', { name: /^\d{4}-\d{2} customer success overview$/ })).toBeVisible();
    await openReport(page, 'business overview');
    await expect(freshnessBadge(page, 'Up to date')).toBeVisible({ timeout: 30_000 });
    const index = pointIndex(await rangeStart(page), lastComplete);

    const mrrTooltip = await pointTooltip(section(page, 'MRR'), index, lastComplete);
    await expect(mrrTooltip).toContainText(`MRR: ${shownMoney(mrr, 'USD')}`);

    const movements = await pointTooltip(section(page, 'MRR movements'), index, lastComplete);
    await expect(movements).toContainText(`New business: ${shownMoney(newBusiness, 'USD')}`);
    // The net line is the month's MRR change.
    await expect(movements).toContainText(`Net: ${shownMoney(mrr - demo.mrr(addMonths(lastComplete, -1), 'USD'), 'USD')}`);
  });

  test('the report page reads well in light and dark colour schemes, at 1440 and 1280 pixels wide', async ({ page }) => {
    test.setTimeout(120_000);
    // Light to begin with (the app reads the scheme from localStorage when it starts).
    await page.addInitScript(([key]) => localStorage.setItem(key, 'light'), [COLOR_SCHEME_KEY] as const);
    // Tall enough for every section to be near the viewport: all charts draw without scrolling.
    await page.setViewportSize({ width: 1440, height: 6000 });
    await signInAsDemo(page, origin());
    await openReport(page, 'business overview');
    await expect(freshnessBadge(page, 'Up to date')).toBeVisible({ timeout: 30_000 });
    const sections = page.locator('main section[aria-label]');
    await expect(sections).toHaveCount(10);
    const firstSection = sections.first();
    const seen = {} as Record<'light' | 'dark', Record<'page' | 'title' | 'sectionTitle' | 'axisLabel' | 'legend', SeenColours>>;

    for (const scheme of ['light', 'dark'] as const) {
      if (scheme === 'dark') {
        // The header's switch: the charts redraw in the dark theme, and the choice is kept in localStorage.
        await page.getByRole('button', { name: 'Switch to dark mode' }).click();
        await expect.poll(() => page.evaluate((key) => localStorage.getItem(key), COLOR_SCHEME_KEY)).toBe('dark');
        // The switch's tooltip goes with the mouse, out of the picture.
        await page.mouse.move(0, 300);
        await expect(page.getByRole('tooltip')).toBeHidden();
      }
      await expect(page.locator('html')).toHaveAttribute('data-mantine-color-scheme', scheme);

      for (const width of [1440, 1280]) {
        await page.setViewportSize({ width, height: 6000 });
        await chartsStandStill(page, sections);
        // Nothing sticks out sideways: no horizontal scrolling at this width.
        await expect.poll(() => horizontalOverflow(page), { message: `horizontal overflow at ${width}px in ${scheme}` }).toBeLessThanOrEqual(0);
      }
      // For a person to look at (test output and /tmp): the page at 1280 pixels.
      const file = test.info().outputPath(`report-${scheme}.png`);
      await page.screenshot({ path: file, fullPage: true });
      copyFileSync(file, `/tmp/report-${scheme}.png`);

      const colours = {
        page: await seenColours(page.getByRole('main')),
        title: await seenColours(page.getByRole('heading', { level: 1 })),
        sectionTitle: await seenColours(firstSection.getByRole('heading').first()),
        axisLabel: await seenColours(firstSection.locator('.apexcharts-xaxis-label').first()),
        legend: await seenColours(section(page, 'MRR movements').getByRole('group', { name: 'Legend' }).locator('.mantine-Text-root').first()),
      };
      seen[scheme] = colours;
      // Text a reader can read (WCAG AA for normal text) on what is really behind it.
      for (const [what, colour] of Object.entries(colours)) {
        expect(colour.contrast, `${what} in ${scheme}: ${colour.text} on ${colour.background}`).toBeGreaterThanOrEqual(4.5);
      }
    }

    // Light: dark text on a light page. Dark: light text on a dark page, the charts' text included.
    const { light, dark } = seen;
    expect(light.page.backgroundLuminance, `light page background ${light.page.background}`).toBeGreaterThan(0.7);
    expect(light.title.textLuminance, `light title ${light.title.text}`).toBeLessThan(0.2);
    expect(dark.page.backgroundLuminance, `dark page background ${dark.page.background}`).toBeLessThan(0.1);
    for (const what of ['title', 'sectionTitle', 'axisLabel', 'legend'] as const) {
      expect(dark[what].textLuminance, `${what} in dark: ${dark[what].text} on ${dark[what].background}`).toBeGreaterThan(dark[what].backgroundLuminance);
      expect(dark[what].backgroundLuminance, `${what}'s background in dark: ${dark[what].background}`).toBeLessThan(0.1);
    }
    // The charts follow the scheme: their text is drawn in another colour.
    expect(dark.axisLabel.text).not.toBe(light.axisLabel.text);
    expect(dark.legend.text).not.toBe(light.legend.text);
  });

  test('the range picker refuses each invalid range with its message, and a valid range is saved', async ({ page }) => {
    // Routed before the app starts: a WebSocket the page opened before is not.
    const channel = await reportChannel(page);
    await signInAsDemo(page, origin());
    await openReport(page, 'customer success overview');
    await expect(freshnessBadge(page, 'Up to date')).toBeVisible({ timeout: 30_000 });
    const titles = await sectionTitles(page);
    expect(titles.length).toBeGreaterThan(0);

    const { current, lastComplete } = months();
    const rangeButton = page.getByRole('button', { name: 'Report range' });
    await rangeButton.click();
    const dialog = page.getByRole('dialog', { name: 'Report range' });
    const alert = dialog.getByRole('alert');
    const apply = dialog.getByRole('button', { name: 'Apply' });
    const pick = async (end: 'From' | 'To', month: string) => {
      const { month: monthLabel, year } = pickerMonth(month);
      await dialog.getByRole('combobox', { name: `${end} year` }).click();
      await dialog.getByRole('option', { name: year, exact: true }).click();
      await dialog.getByRole('combobox', { name: `${end} month` }).click();
      await dialog.getByRole('option', { name: monthLabel, exact: true }).click();
    };

    // 1. Not beyond the current month.
    await pick('To', addMonths(current, 1));
    await expect(alert).toHaveText(RANGE_BEYOND_CURRENT_MONTH);
    await expect(apply).toBeDisabled();
    // 2. From not after To.
    await pick('To', lastComplete);
    await pick('From', current);
    await expect(alert).toHaveText(RANGE_FROM_AFTER_TO);
    await expect(apply).toBeDisabled();
    // 3. At least 3 months (here 2).
    await pick('From', addMonths(lastComplete, -1));
    await expect(alert).toHaveText(RANGE_TOO_SHORT);
    await expect(apply).toBeDisabled();
    // 4. At most 72 months (here from the first year offered).
    await pick('From', `${YEAR_OPTIONS_FIRST}-01`);
    await expect(alert).toHaveText(RANGE_TOO_LONG);
    await expect(apply).toBeDisabled();
    // A valid range: the 12 complete months before this one.
    const start = addMonths(lastComplete, -11);
    await pick('From', start);
    await expect(alert).toBeHidden();
    const label = `${pickerMonth(start).month} ${pickerMonth(start).year} – ${pickerMonth(lastComplete).month} ${pickerMonth(lastComplete).year}`;

    channel.hold();
    await apply.click();
    await expect(dialog).toBeHidden();
    await expect(rangeButton).toHaveText(label);
    // The sections recalculate (the server's updates held back meanwhile), then show the new range.
    await expectRecalculating(page, titles);
    channel.release();
    await expectRecalculated(page, titles);
    const customers = section(page, 'Customers');
    // An axis label is a <text> holding the label and its <title>.
    const axisLabels = customers.locator('.apexcharts-xaxis-label tspan');
    const lastAxisLabel = axisLabels.last();
    await expect(lastAxisLabel).toHaveText(lastComplete);
    await expect(axisLabels.first()).toHaveText(start);

    // Saved: a reload shows the same range, computed.
    await page.reload();
    await expect(rangeButton).toHaveText(label);
    await expect(freshnessBadge(page, 'Up to date')).toBeVisible({ timeout: 30_000 });
    await expect(customers).toHaveAttribute('data-chart-state', 'drawn');
    await expect(lastAxisLabel).toHaveText(lastComplete);
  });

  test('switching the report currency recalculates the sections live and shows MRR in the new currency', async ({ page, request }) => {
    const demo = await seededDemo(request, origin());
    const { lastComplete } = months();
    // Routed before the app starts: a WebSocket the page opened before is not.
    const channel = await reportChannel(page);
    await signInAsDemo(page, origin());
    await openReport(page, 'business overview');
    await expect(freshnessBadge(page, 'Up to date')).toBeVisible({ timeout: 30_000 });
    const titles = await sectionTitles(page);
    const index = pointIndex(await rangeStart(page), lastComplete);
    const mrr = section(page, 'MRR');
    await expect(await pointTooltip(mrr, index, lastComplete)).toContainText(`MRR: ${shownMoney(demo.mrr(lastComplete, 'USD'), 'USD')}`);

    // A mark on the window: it is gone if the page reloads.
    await page.evaluate(() => ((window as unknown as { notReloaded?: boolean }).notReloaded = true));
    const currency = page.getByRole('combobox', { name: 'Report currency' });
    await expect(currency).toHaveValue('USD');
    channel.hold();
    await currency.click();
    await currency.fill('EUR');
    await page.getByRole('option', { name: 'EUR', exact: true }).click();
    await expect(currency).toHaveValue('EUR');
    await expectRecalculating(page, titles);
    channel.release();
    await expectRecalculated(page, titles);

    const euros = shownMoney(demo.mrr(lastComplete, 'EUR'), 'EUR');
    expect(euros).toMatch(/^€/);
    await expect(await pointTooltip(mrr, index, lastComplete)).toContainText(`MRR: ${euros}`);
    expect(await page.evaluate(() => (window as unknown as { notReloaded?: boolean }).notReloaded)).toBe(true);
  });

  test('a server restart shows the connection-lost notice, then Connection re-established, and the report is read again', async ({ page }) => {
    test.setTimeout(90_000);
    await signInAsDemo(page, origin());
    await openReport(page, 'business overview');
    await expect(freshnessBadge(page, 'Up to date')).toBeVisible({ timeout: 30_000 });
    // Live: the 'Connecting' badge goes once the channel is subscribed.
    await expect(page.getByText('Connecting', { exact: true })).toBeHidden({ timeout: 15_000 });
    const lost = page.getByText(LOST_NOTICE);
    const offline = page.getByText('Offline', { exact: true });
    await expect(lost).toBeHidden();

    const running = own.server as RunningServer;
    const port = new URL(running.url).port;
    await running.stop('SIGKILL');
    own.server = undefined;
    await expect(lost).toBeVisible();
    await expect(offline).toBeVisible();

    // The same data on the same port (the page's address).
    own.server = await startServer({ dataDir: running.dataDir, env: { ...OWN_ENV, PORT: port } });
    expect(own.server.url).toBe(running.url);
    // The notice stayed while the server was down (a restart takes seconds).
    await expect(lost).toBeVisible();

    const readAgain = page.waitForResponse((response) => response.url().includes('/api/v11/business_reports/by_secret') && response.status() === 200, { timeout: 30_000 });
    // The consumer checks its connection again at once when the tab becomes visible (else within its stale threshold, 6-12 s).
    await page.evaluate(() => window.dispatchEvent(new Event('visibilitychange')));
    await expect(page.getByText(REESTABLISHED_NOTICE)).toBeVisible({ timeout: 20_000 });
    await expect(lost).toBeHidden();
    await readAgain;
    await expect(offline).toBeHidden();
    // 'Connection re-established' is shown for 2 s.
    await expect(page.getByText(REESTABLISHED_NOTICE)).toBeHidden({ timeout: 5_000 });
    await expect(section(page, 'MRR')).toHaveAttribute('data-chart-state', 'drawn');
  });
});
