import { randomUUID } from 'node:crypto';
import { signInAsNewOwner } from './support/auth';
import { connectThroughOAuth } from './support/oauth';
import { expect, test } from './support/test';

/**
 * Connecting Intercom against the fake Intercom (started by the global setup; its URL is in
 * E2E_FAKES_ENV): the card's Connect goes through Intercom's OAuth consent and back, the card
 * then says 'Configuration needed' and opens the dialog (object type select, attribute name, Save
 * disabled while the name is empty), whose save starts the first sync; the sync-complete toast
 * shows, the card ends Connected, and the customer has the contact's attribute value.
 */

test('connects Intercom by OAuth, configures where the public id is, syncs the contacts’ attributes', async ({ page, request }) => {
  test.setTimeout(120_000);
  const env = JSON.parse(process.env.E2E_FAKES_ENV ?? '{}') as Record<string, string>;
  const fake = env.INTERCOM_API_URL;
  if (!fake) throw new Error('INTERCOM_API_URL is not in E2E_FAKES_ENV: the global setup starts the fakes');
  const run = randomUUID().slice(0, 8);
  const publicId = `ic-e2e-${run}`;
  const tier = `tier-${run}`;

  // The fake is shared: this run's contact carries its own ids.
  const added = await request.post(`${fake}/__fake/contacts`, { data: { contacts: [{ external_id: publicId, email: `${run}@example.com`, custom_attributes: { plan_tier: tier } }] } });
  expect(added.ok()).toBe(true);

  const owner = await signInAsNewOwner(page, request, 'intercom');
  const headers = { authorization: `Bearer ${owner.token}` };
  expect((await request.post('/api/v11/customers', { headers, data: { name: 'E2E Support Co', public_id: publicId } })).status()).toBe(201);

  await page.goto('/settings');
  const card = page.getByRole('region', { name: 'Intercom' });
  await expect(card.getByText('Configuration needed')).toBeVisible();
  // OAuth: /users/auth/intercom → the fake's consent page → the callback → back to Settings.
  await connectThroughOAuth(page, card.getByRole('button', { name: 'Connect Intercom' }), 'intercom');

  // Authorized, not configured yet: the card opens the dialog now.
  await expect(card.getByText('Configuration needed')).toBeVisible();
  await card.getByRole('button', { name: 'Configure Intercom' }).click();
  const dialog = page.getByRole('dialog', { name: 'Connect Intercom' });
  await expect(dialog.getByLabel('Object type', { exact: true })).toHaveValue('Customer');
  const save = dialog.getByRole('button', { name: 'Save' });
  await expect(save).toBeDisabled();
  await dialog.getByLabel('Attribute name', { exact: true }).fill('external_id');
  await expect(save).toBeEnabled();
  await save.click();
  await expect(dialog).toBeHidden();
  await expect(page.getByText('Intercom is synced: your reports now include its data')).toBeVisible({ timeout: 60_000 });
  await expect(card.getByText('Connected', { exact: true })).toBeVisible();

  // The customer has the contact's custom attribute as 'Intercom plan_tier'.
  const attributes = (await (await request.get('/api/v11/object_attributes', { headers })).json()) as { items: { name: string; segment_id: string | null }[] };
  const planTier = attributes.items.find((attribute) => attribute.name === 'Intercom plan_tier');
  expect(planTier?.segment_id).toBeTruthy();
  const values = await request.get(`/api/v11/customer_segments/${planTier?.segment_id}/search_values`, { headers });
  expect(((await values.json()) as { items: { value: string }[] }).items).toEqual([{ value: tier }]);
});
