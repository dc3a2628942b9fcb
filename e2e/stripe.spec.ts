import { signInAsNewOwner } from './support/auth';
import { connectThroughOAuth } from './support/oauth';
import { expect, test } from './support/test';

/**
 * Connecting Stripe through Stripe Connect OAuth against the fake Stripe (started by the global
 * setup; E2E_FAKE_STRIPE_URL): the Stripe card's Connect sends the browser to
 * `/users/auth/stripe?authorization=…&frontend_request=true&redirect_url=…`, the fake's
 * authorize page sends it back with a code, the server exchanges it, and Settings shows the
 * card Connected once the first sync has read the fake's customers and invoices.
 */

interface Integration {
  name: string;
  configured: boolean;
  initially_synced: boolean;
  sync_status: string;
}

test('connects Stripe through the OAuth redirect; the card ends Connected', async ({ page, request }) => {
  test.setTimeout(120_000);
  const fakeStripe = process.env.E2E_FAKE_STRIPE_URL;
  if (!fakeStripe) throw new Error('E2E_FAKE_STRIPE_URL is not set: the global setup starts the fakes');
  expect((await request.post(`${fakeStripe}/__fake/seed`, { data: { customers: 3 } })).ok()).toBe(true);

  const owner = await signInAsNewOwner(page, request, 'stripe');
  await page.goto('/settings');
  // The card sends the browser to /users/auth/stripe?authorization=…&frontend_request=true&redirect_url=…/settings.
  await connectThroughOAuth(page, page.getByRole('region', { name: 'Stripe' }).getByRole('button', { name: 'Connect Stripe' }), 'stripe');

  const stripe = async () => {
    const answer = await request.get('/api/v11/integrations', { headers: { authorization: `Bearer ${owner.token}` } });
    return ((await answer.json()) as { items: Integration[] }).items.find((item) => item.name === 'stripe');
  };
  await expect.poll(async () => (await stripe())?.initially_synced, { timeout: 60_000 }).toBe(true);
  expect(await stripe()).toMatchObject({ configured: true, sync_status: 'idle' });

  await page.reload();
  // The Data sources section's Stripe card (a region named after the integration).
  await expect(page.getByRole('region', { name: 'Stripe' }).getByText('Connected', { exact: true })).toBeVisible();

  // The synced customers are the account's.
  const customers = await request.get('/api/v11/customers', { headers: { authorization: `Bearer ${owner.token}` } });
  expect(customers.ok()).toBe(true);
  expect(JSON.stringify(await customers.json())).toContain('Seed customer');
});
