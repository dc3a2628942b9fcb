import { randomUUID } from 'node:crypto';
import { signInAsNewOwner } from './support/auth';
import { connectThroughOAuth } from './support/oauth';
import { expect, test } from './support/test';

/**
 * Connecting HubSpot against the fake HubSpot (started by the global setup; its URL is in
 * E2E_FAKES_ENV): the card's Connect goes through HubSpot's OAuth consent and back, the card
 * then says 'Configuration needed' and opens the dialog, whose attribute name starts the first
 * sync; the sync-complete toast shows, the card ends Connected, and the deal owner filter's
 * list (GET /deal_owners) holds the synced deal's owner.
 */

test('connects HubSpot by OAuth, configures its attribute, syncs the deals and their owners', async ({ page, request }) => {
  test.setTimeout(120_000);
  const env = JSON.parse(process.env.E2E_FAKES_ENV ?? '{}') as Record<string, string>;
  const fake = env.HUBSPOT_API_URL;
  if (!fake) throw new Error('HUBSPOT_API_URL is not in E2E_FAKES_ENV: the global setup starts the fakes');
  const run = randomUUID().slice(0, 8);
  const publicId = `hs-e2e-${run}`;
  const ownerName = { firstName: 'Olga', lastName: `Tokarczuk ${run}` };

  // The fake is shared: this run's owner, company and deal carry its own ids.
  expect((await request.post(`${fake}/__fake/owners`, { data: { owners: [{ id: '7001', email: 'olga@example.com', ...ownerName }] } })).ok()).toBe(true);
  const company = await request.post(`${fake}/__fake/companies`, { data: { companies: [{ properties: { name: 'E2E Corp', industry: 'RETAIL', e2e_customer_id: publicId } }] } });
  const [companyId] = ((await company.json()) as { ids: string[] }).ids;
  expect(
    (
      await request.post(`${fake}/__fake/deals`, {
        data: { deals: [{ properties: { dealname: `E2E deal ${run}`, amount: '4200', deal_currency_code: 'USD', dealstage: 'closedwon', hubspot_owner_id: '7001' }, companyIds: [companyId] }] },
      })
    ).ok(),
  ).toBe(true);

  const owner = await signInAsNewOwner(page, request, 'hubspot');
  const headers = { authorization: `Bearer ${owner.token}` };
  expect((await request.post('/api/v11/customers', { headers, data: { name: 'E2E Corp', public_id: publicId } })).status()).toBe(201);

  await page.goto('/settings');
  const card = page.getByRole('region', { name: 'HubSpot' });
  await expect(card.getByText('Configuration needed')).toBeVisible();
  // OAuth: /users/auth/hubspot → the fake's consent page → the callback → back to Settings.
  await connectThroughOAuth(page, card.getByRole('button', { name: 'Connect HubSpot' }), 'hubspot');

  // Authorized, not configured yet: the card opens the dialog now.
  await expect(card.getByText('Configuration needed')).toBeVisible();
  await card.getByRole('button', { name: 'Configure HubSpot' }).click();
  const dialog = page.getByRole('dialog', { name: 'Connect HubSpot' });
  const save = dialog.getByRole('button', { name: 'Save' });
  // Save stays disabled while the attribute name is empty.
  await expect(save).toBeDisabled();
  await dialog.getByLabel('Attribute name').fill('e2e_customer_id');
  await save.click();
  await expect(dialog).toBeHidden();
  await expect(page.getByText('HubSpot is synced: your reports now include its data')).toBeVisible({ timeout: 60_000 });
  await expect(card.getByText('Connected', { exact: true })).toBeVisible();

  // The deal owner filter lists the synced deal's owner.
  const owners = await request.get('/api/v11/deal_owners', { headers });
  expect(owners.ok()).toBe(true);
  expect(((await owners.json()) as { items: { owner_name: string }[] }).items).toEqual([{ owner_name: `${ownerName.firstName} ${ownerName.lastName}` }]);
});
