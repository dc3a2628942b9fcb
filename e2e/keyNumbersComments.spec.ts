import type { APIRequestContext, Page } from '@playwright/test';
import { randomBytes } from 'node:crypto';
import { signInThroughForm } from './support/auth';
import { addMonths } from './support/demoNumbers';
import { pointTooltip } from './support/charts';
import { expect, test } from './support/test';
import { MONTH_LABELS } from '../models/reportRange';

/**
 * Key numbers and comments (issue 7) on the shared server's demo account: a report of its own
 * (MRR and customers), so what other specs do to the demo reports does not matter here.
 */

const DEMO = { email: 'demo@subscope.dev', password: 'subscope-demo-2026' };

interface Created {
  id: string;
  secret: string;
  headers: Record<string, string>;
  userName: string;
}

async function createReport(request: APIRequestContext): Promise<Created> {
  const signIn = await request.post('/api/v11/users/sign_in', { data: { user: DEMO } });
  expect(signIn.status()).toBe(200);
  const headers = { authorization: signIn.headers()['authorization'] ?? '' };
  const { user } = (await signIn.json()) as { user: { name: string } };
  const title = `Key numbers ${randomBytes(4).toString('hex')}`;
  const created = await request.post('/api/v11/business_reports', { headers, data: { title, sections: [{ definition_id: 'mrr' }, { definition_id: 'customers' }] } });
  expect(created.status()).toBe(201);
  const { id, secret } = (await created.json()) as { id: string; secret: string };
  return { id, secret, headers, userName: user.name };
}

async function openReport(page: Page, secret: string): Promise<void> {
  await page.goto('/sign_in');
  await signInThroughForm(page, DEMO.email, DEMO.password);
  await expect(page).toHaveURL(/\/$/);
  await page.goto(`/reports/${secret}`);
  await expect(page.getByRole('main').locator('.mantine-Badge-root').filter({ hasText: /^Up to date$/ })).toBeVisible({ timeout: 60_000 });
}

const section = (page: Page, title: string) => page.getByRole('region', { name: title, exact: true });

/** The range button's label ('Dec 2024 – Nov 2026') as its first month 'YYYY-MM'. */
async function rangeStart(page: Page): Promise<string> {
  const label = (await page.getByRole('button', { name: 'Report range' }).innerText()).trim();
  const match = /^([A-Z][a-z]{2}) (\d{4}) – /.exec(label);
  if (!match) throw new Error(`unexpected range label '${label}'`);
  const month = MONTH_LABELS.indexOf(match[1] as (typeof MONTH_LABELS)[number]) + 1;
  return `${match[2]}-${String(month).padStart(2, '0')}`;
}


const created: Created[] = [];
test.afterAll(async ({ request }) => {
  for (const report of created) await request.delete(`/api/v11/business_reports/${report.id}`, { headers: report.headers });
});

test('adds a key number from a section’s menu, with the value its chart shows for the last complete month, and removes it', async ({ page, request }) => {
  test.setTimeout(120_000);
  const report = await createReport(request);
  created.push(report);
  await openReport(page, report.secret);
  const lastComplete = addMonths(new Date().toISOString().slice(0, 7), -1);
  const strip = page.getByRole('region', { name: 'Key numbers' });

  await expect(page.getByText('No key numbers yet: add one from a section’s menu.')).toBeVisible();
  await page.getByRole('button', { name: 'Section menu of MRR' }).click();
  await page.getByRole('menuitem', { name: 'Add to key numbers' }).click();
  const card = strip.getByRole('group', { name: 'MRR' });
  await expect(card).toBeVisible();
  await expect(card).toContainText(lastComplete);
  const value = (await card.getByTestId('key-number-value').innerText()).trim();
  expect(value).toMatch(/^\$[\d,]+$/);

  const start = await rangeStart(page);
  const [sy, sm] = start.split('-').map(Number) as [number, number];
  const [ly, lm] = lastComplete.split('-').map(Number) as [number, number];
  const tooltip = await pointTooltip(section(page, 'MRR'), (ly - sy) * 12 + (lm - sm), lastComplete);
  await expect(tooltip).toContainText(`MRR: ${value}`);

  // Kept by the server: there after a reload, and the menu now offers to remove it.
  await page.reload();
  await expect(strip.getByRole('group', { name: 'MRR' })).toContainText(value);
  await page.getByRole('button', { name: 'Section menu of MRR' }).click();
  await expect(page.getByRole('menuitem', { name: 'Remove from key numbers' })).toBeVisible();
  await page.keyboard.press('Escape');

  await strip.getByRole('button', { name: 'Remove MRR from key numbers' }).click();
  await expect(page.getByRole('region', { name: 'Key numbers' })).toHaveCount(0);
  await page.reload();
  await expect(page.getByText('No key numbers yet: add one from a section’s menu.')).toBeVisible();
  const listed = await request.get(`/api/v11/business_reports/by_secret/key_numbers?secret=${report.secret}`, { headers: report.headers });
  expect(((await listed.json()) as { items: unknown[] }).items).toEqual([]);
});

test('writes a comment and sees it listed with the author’s name, also after a reload', async ({ page, request }) => {
  test.setTimeout(90_000);
  const report = await createReport(request);
  created.push(report);
  await openReport(page, report.secret);
  const content = `Churn looks better this month (${randomBytes(3).toString('hex')})`;

  const comments = page.getByRole('region', { name: 'Comments' });
  await expect(comments.getByText('No comments yet.')).toBeVisible();
  const button = comments.getByRole('button', { name: 'Comment' });
  await expect(button).toBeDisabled();
  await comments.getByRole('textbox', { name: 'New comment' }).fill('   ');
  await expect(button).toBeDisabled();
  await comments.getByRole('textbox', { name: 'New comment' }).fill(content);
  await button.click();

  const comment = comments.getByRole('article', { name: `Comment by ${report.userName}` });
  await expect(comment).toContainText(content);
  await expect(comment).toContainText('a few seconds ago');
  await expect(comments.getByRole('textbox', { name: 'New comment' })).toHaveValue('');

  await page.reload();
  await expect(page.getByRole('region', { name: 'Comments' }).getByRole('article', { name: `Comment by ${report.userName}` })).toContainText(content);
});
