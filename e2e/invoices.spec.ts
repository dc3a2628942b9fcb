import { signInAsNewOwner } from './support/auth';
import { expect, test } from './support/test';

/**
 * Rejected invoices against the fake Fakturownia (its URL in E2E_FAKE_FAKTUROWNIA_URL; the
 * server's FAKTUROWNIA_API_URL points at it): an invoice whose line no rule knows shows on
 * /invoices with the top bar's link, a rule made from it in the drawer turns it into a payment,
 * the line leaves the page and the payment shows on /payments.
 */

const fakeUrl = () => {
  const url = process.env.E2E_FAKE_FAKTUROWNIA_URL;
  if (!url) throw new Error('E2E_FAKE_FAKTUROWNIA_URL is not set: the global setup starts the fakes');
  return url;
};

test('a rejected Fakturownia line becomes a payment through a rule made from it', async ({ page, request }) => {
  test.setTimeout(180_000);
  const owner = await signInAsNewOwner(page, request, 'invoices');
  const tag = Math.random().toString(36).slice(2, 8);
  const lineName = `Analytics plan ${tag} (annual)`;
  const buyer = `Buyer ${tag} Sp. z o.o.`;
  const added = await request.post(`${fakeUrl()}/__fake/invoices?subdomain=e2e${tag}`, {
    data: { issue_date: new Date().toISOString().slice(0, 10), currency: 'USD', buyer_name: buyer, buyer_tax_no: `99${tag}`, positions: [{ name: lineName, total_price_gross: '2400.00' }] },
  });
  expect(added.status()).toBe(201);

  // Connected through the API: the Fakturownia dialog of Settings has its own test.
  const connected = await request.post('/api/v11/integrations/fakturownia', {
    headers: { authorization: `Bearer ${owner.token}` },
    data: { fakturownia_api_token: 'test_fakturownia_token', fakturownia_subdomain: `e2e${tag}` },
  });
  expect(connected.status(), await connected.text()).toBe(200);

  const row = page.getByRole('table', { name: 'Rejected invoice lines' }).getByRole('row').filter({ hasText: lineName });
  await page.goto('/invoices');
  await expect(async () => {
    await page.reload();
    await expect(row).toBeVisible({ timeout: 2_000 });
  }).toPass({ timeout: 60_000 });
  await expect(row).toContainText(buyer);
  await expect(row).toContainText('$2,400.00');
  await expect(page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Import rejected invoices' })).toBeVisible();

  await row.getByRole('button', { name: `Create rule from ${lineName}` }).click();
  const drawer = page.getByRole('dialog', { name: 'New import rule' });
  await expect(drawer.getByLabel(/Line name/)).toHaveValue(lineName);
  await expect(drawer.getByText('This rule affects 1 rejected invoice line.')).toBeVisible();
  await drawer.getByRole('button', { name: 'Create rule' }).click();
  await expect(drawer.getByText('Product name is required')).toBeVisible();
  await drawer.getByLabel(/Product/).fill('Analytics');
  await drawer.getByLabel(/Duration/).fill('12');
  await drawer.getByRole('button', { name: 'Create rule' }).click();
  await expect(page.getByText('rule added')).toBeVisible();
  await expect(drawer).toBeHidden();
  await expect(row).toHaveCount(0);
  await expect(page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Import rejected invoices' })).toBeHidden();

  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Payments' }).click();
  const payment = page.getByRole('row').filter({ hasText: buyer });
  await expect(payment).toBeVisible();
  await expect(payment).toContainText('$2,400.00');
});
