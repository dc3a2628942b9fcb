import { seenColours } from './support/colors';
import { expect, test } from './support/test';

test.describe('the product on a fresh start', () => {
  test('answers health with the embedded storage engine', async ({ request }) => {
    const response = await request.get('/api/v11/health');
    expect(response.ok()).toBe(true);
    expect(await response.json()).toMatchObject({ status: 'ok', api_version: 11, database: 'pglite' });
  });

  test('loads the app on a deep link to a report, and asks a signed-out visitor to sign in first (the server does not say whether it exists)', async ({ page }) => {
    await page.goto('/reports/abc123');
    await expect(page).toHaveURL(/\/sign_in$/);
    await expect(page.getByRole('heading', { level: 1, name: 'Sign in' })).toBeVisible();
    await expect(page).toHaveTitle(/Subscope/);
    expect(await page.evaluate(() => window.localStorage.getItem('subscope.redirectAfterSignIn'))).toBe('/reports/abc123');
  });

  test('loads the sign-in area on a deep link with a token in the path', async ({ page }) => {
    await page.goto('/reset_password/some.token.value');
    await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
    await expect(page).toHaveURL(/\/reset_password\/some\.token\.value$/);
  });

  test('shows the not-found page for an unknown path and leads back to reports (sign-in first when anonymous)', async ({ page }) => {
    await page.goto('/no/such/page');
    await expect(page.getByRole('heading', { level: 1, name: 'Page not found' })).toBeVisible();
    await page.getByRole('link', { name: 'Back to reports' }).click();
    await expect(page).toHaveURL(/\/sign_in$/);
  });

  test('switches between light and dark and keeps the choice after a reload', async ({ page }) => {
    await page.emulateMedia({ colorScheme: 'light' });
    await page.goto('/getting-started');
    const html = page.locator('html');
    // What a reader sees: the page's first heading and what is behind it.
    const heading = () => seenColours(page.getByRole('heading', { level: 1 }).first());
    await expect(html).toHaveAttribute('data-mantine-color-scheme', 'light');
    const light = await heading();
    expect(light.backgroundLuminance, `light background ${light.background}`).toBeGreaterThan(0.7);
    expect(light.contrast, `light: ${light.text} on ${light.background}`).toBeGreaterThanOrEqual(4.5);

    await page.getByRole('button', { name: 'Switch to dark mode' }).click();
    await expect(html).toHaveAttribute('data-mantine-color-scheme', 'dark');
    const expectDark = async () => {
      const dark = await heading();
      expect(dark.backgroundLuminance, `dark background ${dark.background}`).toBeLessThan(0.1);
      expect(dark.textLuminance, `dark: ${dark.text} on ${dark.background}`).toBeGreaterThan(dark.backgroundLuminance);
      expect(dark.contrast, `dark: ${dark.text} on ${dark.background}`).toBeGreaterThanOrEqual(4.5);
    };
    await expectDark();
    await page.reload();
    await expect(html).toHaveAttribute('data-mantine-color-scheme', 'dark');
    await expectDark();
  });

  test('serves browsable API docs generated from the route schemas', async ({ page }) => {
    await page.goto('/api/v11/docs');
    await expect(page.getByText('Subscope API')).toBeVisible();
    await expect(page.getByText('/health')).toBeVisible();
  });

  test('signs in with the demo credentials printed at start', async ({ page }) => {
    await page.goto('/sign_in');
    await page.getByLabel('Email').fill('demo@subscope.dev');
    await page.getByLabel('Password', { exact: true }).fill('subscope-demo-2026');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect(page).toHaveURL(/\/$/);
    await expect(page.getByRole('button', { name: 'User menu' })).toBeVisible();
  });

  test('reports an unknown API path as JSON in the spec error shape', async ({ request }) => {
    const response = await request.get('/api/v11/definitely-not-here');
    expect(response.status()).toBe(404);
    expect(await response.json()).toEqual({
      errors: [{ detail: 'No route for GET /api/v11/definitely-not-here', status: '404', title: 'Not Found' }],
    });
  });
});
