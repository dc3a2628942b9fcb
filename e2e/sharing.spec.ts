import type { APIRequestContext, Browser, Page } from '@playwright/test';
import { newPerson, signInThroughForm, signUpThroughApi } from './support/auth';
import { upToDateBadge } from './support/reportState';
import { expect, test } from './support/test';

/**
 * Sharing (issue 19): share links pinned to a segment value, group links that follow a
 * report's monthly line, revoking, and a signed-out visitor on a report by its own secret.
 * Every visitor without an account is a second browser context with no session.
 */

const DEMO = { email: 'demo@subscope.dev', password: 'subscope-demo-2026' };

const keyNumber = (page: Page, title: string) => page.getByRole('region', { name: 'Key numbers' }).getByRole('group', { name: title, exact: true }).getByTestId('key-number-value');
const mrrSection = (page: Page) => page.getByRole('region', { name: 'MRR', exact: true });

/** Presses `key` with nothing focused (a hot key; not typed into a field). */
async function pressOnPage(page: Page, key: string): Promise<void> {
  await page.evaluate(() => (document.activeElement instanceof HTMLElement ? document.activeElement.blur() : undefined));
  await page.keyboard.press(key);
}

/** A browser context with no session: someone who got a link. */
async function visitor(browser: Browser, baseURL: string | undefined): Promise<Page> {
  const context = await browser.newContext({ baseURL });
  return context.newPage();
}

/** A new account's owner with one report (MRR and customers), signed in through the form. */
async function ownerWithReport(page: Page, request: APIRequestContext, prefix: string, title: string) {
  const owner = await signUpThroughApi(request, newPerson(prefix));
  const headers = { authorization: `Bearer ${owner.token}` };
  const created = await request.post('/api/v11/business_reports', { headers, data: { title, sections: [{ definition_id: 'mrr' }, { definition_id: 'customers' }] } });
  expect(created.status()).toBe(201);
  const report = (await created.json()) as { id: string; secret: string };
  return { owner, headers, report };
}

async function signIn(page: Page, email: string, password: string): Promise<void> {
  await page.goto('/sign_in');
  await signInThroughForm(page, email, password);
  await expect(page).toHaveURL(/\/$/);
}

/** The share dialog's newest link in the list `label` ('Share links' or 'Group links'), as a path on this site. */
async function newestLink(page: Page, label: string): Promise<string> {
  const list = page.getByRole('dialog', { name: 'Share report' }).getByRole('list', { name: label });
  const input = list.getByRole('textbox').first();
  await expect(input).toHaveValue(/^https?:\/\//);
  const url = new URL(await input.inputValue());
  return url.pathname + url.search;
}

test.describe('sharing reports', () => {
  test('an owner shares a report pinned to one plan: a signed-out visitor sees only that plan’s numbers, read only, until the link is revoked', async ({ page, browser, baseURL }) => {
    test.setTimeout(120_000);
    await signIn(page, DEMO.email, DEMO.password);
    await page.getByRole('link', { name: /^\d{4}-\d{2} business overview$/ }).click();
    await expect(page).toHaveURL(/\/reports\/[A-Za-z0-9]{32}$/);
    await expect(upToDateBadge(page)).toBeVisible({ timeout: 60_000 });
    const reportPath = new URL(page.url()).pathname;

    const total = await keyNumber(page, 'MRR').innerText();
    // The owner has what the visitor must not: the section's menu.
    await expect(page.getByRole('button', { name: 'Section menu of MRR', exact: true })).toBeVisible();
    // The owner's own filter says what the Pro plan alone is.
    await pressOnPage(page, 'Shift+F');
    const picker = page.getByRole('dialog', { name: 'Filter report' });
    await picker.getByRole('combobox', { name: 'Search filters' }).fill('pro');
    await picker.getByRole('option', { name: 'Pro', exact: true }).click();
    await expect(page.getByRole('status', { name: 'Active filter' }).getByText('Plan is Pro', { exact: true })).toBeVisible({ timeout: 30_000 });
    await expect(keyNumber(page, 'MRR')).not.toHaveText(total, { timeout: 30_000 });
    const pro = await keyNumber(page, 'MRR').innerText();
    await page.getByRole('button', { name: 'Clear filter' }).click();
    await expect(keyNumber(page, 'MRR')).toHaveText(total);

    await page.getByRole('button', { name: 'Share', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'Share report' });
    await expect(dialog).toBeVisible();
    await dialog.getByRole('switch', { name: 'Show only one segment' }).check({ force: true });
    await dialog.getByRole('combobox', { name: 'Segment value' }).fill('Pro');
    await page.getByRole('option', { name: 'Plan: Pro', exact: true }).click();
    await dialog.getByRole('button', { name: 'Create share link' }).click();
    await expect(dialog.getByRole('list', { name: 'Share links' }).getByRole('textbox', { name: 'Link: Plan: Pro' }).first()).toBeVisible();
    const sharedPath = await newestLink(page, 'Share links');
    expect(sharedPath).toMatch(/^\/reports\/shared\/[A-Za-z0-9]{32}$/);

    const guest = await visitor(browser, baseURL);
    await guest.goto(sharedPath);
    await expect(guest.getByRole('alert').filter({ hasText: 'A shared report' })).toContainText('Plan: Pro only');
    await expect(keyNumber(guest, 'MRR')).toHaveText(pro, { timeout: 30_000 });
    expect(pro).not.toBe(total);
    // Read only: no editing, filter, share, details or comments; 'Sign in' in the top bar.
    await expect(guest.getByRole('button', { name: 'Sign in' }).or(guest.getByRole('link', { name: 'Sign in' }))).toBeVisible();
    for (const name of ['Add chart', 'Recalculate', 'Share', 'Create view', 'Edit view', 'Filter']) await expect(guest.getByRole('button', { name, exact: true })).toHaveCount(0);
    await expect(guest.getByRole('heading', { name: 'Comments' })).toHaveCount(0);
    await expect(guest.getByRole('button', { name: 'Section menu of MRR', exact: true })).toHaveCount(0);
    await expect(mrrSection(guest)).toHaveAttribute('data-chart-state', 'drawn', { timeout: 20_000 });
    await mrrSection(guest).locator('.apexcharts-marker').first().click({ force: true });
    await expect(guest.getByRole('dialog')).toHaveCount(0);
    // The report's own secret is not in what the visitor was sent.
    expect(await guest.content()).not.toContain(reportPath.split('/').pop());

    // Revoked: the visitor's next read is 'not found'.
    await dialog.getByRole('list', { name: 'Share links' }).getByRole('listitem').first().getByRole('button', { name: 'Revoke link' }).click();
    await page.getByRole('button', { name: 'Revoke', exact: true }).click();
    await expect(dialog.getByRole('list', { name: 'Share links' }).getByRole('textbox', { name: 'Link: Plan: Pro' })).toHaveCount(0);
    await guest.reload();
    await expect(guest.getByRole('heading', { name: 'Report not found' })).toBeVisible();
    await guest.context().close();
  });

  test('a group link opens the newest report of its line, keeping the currency, once next month’s successor exists', async ({ page, request }) => {
    test.setTimeout(90_000);
    const { owner, headers, report } = await ownerWithReport(page, request, 'group', 'Board pack');
    await signIn(page, owner.email, owner.password);
    await page.goto(`/reports/${report.secret}`);
    await page.getByRole('button', { name: 'Share', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'Share report' });
    await dialog.getByRole('button', { name: 'Create group link' }).click();
    const groupPath = await newestLink(page, 'Group links');
    expect(groupPath).toMatch(/^\/reports\/group\/[A-Za-z0-9]{32}$/);
    await page.keyboard.press('Escape');

    await page.goto(groupPath);
    await expect(page).toHaveURL(new RegExp(`/reports/${report.secret}$`));

    // Next month's successor of the report (what the monthly job makes on the first).
    const now = new Date();
    const nextMonth = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1, 1));
    const made = await request.post('/api/v11/test/make_successor', { headers, data: { report_id: report.id, now: nextMonth.toISOString() } });
    expect(made.status()).toBe(201);
    const successor = (await made.json()) as { secret: string };
    expect(successor.secret).not.toBe(report.secret);

    await page.goto(`${groupPath}?currency=eur`);
    await expect(page).toHaveURL(new RegExp(`/reports/${successor.secret}\\?currency=EUR$`));
    await expect(page.getByRole('alert').filter({ hasText: 'Shown in EUR' })).toBeVisible();

    await page.goto('/reports/group/NoSuchGroupLinkNoSuchGroupLink00');
    await expect(page.getByText('Uh :( we failed to fetch report')).toBeVisible();
  });

  test('a signed-out visitor on a report of an account that requires signing in signs in and lands on the report; with anonymous access on, anyone reads it', async ({ page, browser, baseURL, request }) => {
    test.setTimeout(90_000);
    const { owner, headers, report } = await ownerWithReport(page, request, 'anon', 'Investor update');

    const guest = await visitor(browser, baseURL);
    await guest.goto(`/reports/${report.secret}`);
    await expect(guest).toHaveURL(/\/sign_in$/);
    await signInThroughForm(guest, owner.email, owner.password);
    await expect(guest).toHaveURL(new RegExp(`/reports/${report.secret}$`));
    await expect(guest.getByRole('heading', { level: 1, name: 'Investor update' })).toBeVisible();
    await guest.context().close();

    const setting = await request.put('/api/v11/account_settings', { headers, data: { anonymous_access_allowed: true } });
    expect(setting.status()).toBe(200);
    const anyone = await visitor(browser, baseURL);
    await anyone.goto(`/reports/${report.secret}`);
    await expect(anyone.getByRole('heading', { level: 1, name: 'Investor update' })).toBeVisible();
    await expect(anyone).toHaveURL(new RegExp(`/reports/${report.secret}$`));
    await expect(anyone.getByRole('button', { name: 'Recalculate' })).toHaveCount(0);
    // 'Sign in' remembers the report: signing in comes back to it.
    await anyone.getByRole('link', { name: 'Sign in' }).click();
    await expect(anyone).toHaveURL(/\/sign_in$/);
    await signInThroughForm(anyone, owner.email, owner.password);
    await expect(anyone).toHaveURL(new RegExp(`/reports/${report.secret}$`));
    await anyone.context().close();
  });
});
