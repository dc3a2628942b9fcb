import { signInAsNewOwner } from './support/auth';
import { expect, test } from './support/test';

/**
 * Connecting wFirma from Settings → Data sources against the fake wFirma (started by the global
 * setup; the server's WFIRMA_API_URL points at it, and it takes any e-mail with the password
 * `test_wfirma_password`): a wrong password shows the spec's cannot-connect message in the
 * dialog, the right one saves it, the first sync runs and the card reaches Connected with the
 * sync-complete toast.
 */

const fakeUrl = () => {
  const url = (JSON.parse(process.env.E2E_FAKES_ENV ?? '{}') as Record<string, string>).WFIRMA_API_URL;
  if (!url) throw new Error('WFIRMA_API_URL is not in E2E_FAKES_ENV: the global setup starts the fakes');
  return url;
};

test('connects wFirma through its dialog: a wrong password is refused, the right one syncs and connects', async ({ page, request }) => {
  test.setTimeout(120_000);
  const email = `books-${Math.random().toString(36).slice(2, 8)}@example.com`;
  const added = await request.post(`${fakeUrl()}/__fake/invoices?email=${encodeURIComponent(email)}`, {
    data: { date: new Date().toISOString().slice(0, 10), currency: 'PLN', contractor_name: 'Acme Sp. z o.o.', contents: [{ name: 'Pro plan (monthly)', brutto: '123.00' }] },
  });
  expect(added.status()).toBe(201);
  // Each answer waits, so the first sync is seen running before it completes.
  expect((await request.post(`${fakeUrl()}/__fake/delay`, { data: { ms: 700 } })).ok()).toBe(true);
  try {
    await signInAsNewOwner(page, request, 'wfirma');
    await page.goto('/settings');
    const card = page.getByRole('region', { name: 'wFirma' });
    await expect(card.getByText('Configuration needed')).toBeVisible();
    await card.getByRole('button', { name: 'Connect wFirma' }).click();
    const dialog = page.getByRole('dialog', { name: 'Connect wFirma' });

    await dialog.getByLabel('E-mail').fill(email);
    await dialog.getByLabel('Password', { exact: true }).fill('not the password');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await expect(dialog.getByText('We could not connect to wFirma, please make sure your e-mail and password are correct')).toBeVisible();

    await dialog.getByLabel('Password', { exact: true }).fill('test_wfirma_password');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await expect(dialog).toBeHidden();
    await expect(card.getByText('Connected', { exact: true })).toBeVisible({ timeout: 60_000 });
    await expect(page.getByText('wFirma is synced: your reports now include its data')).toBeVisible();
  } finally {
    await request.post(`${fakeUrl()}/__fake/delay`, { data: { ms: 0 } });
  }
});
