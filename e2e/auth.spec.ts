import type { Page } from '@playwright/test';
import { latestMail, linkIn, newPerson, signInThroughForm, signUpThroughApi } from './support/auth';
import { expect, test } from './support/test';

const userMenu = (page: Page) => page.getByRole('button', { name: /user menu|account menu/i });

test.describe('accounts and sign-in', () => {
  test('signs up and lands on getting started, signed in', async ({ page }) => {
    const person = newPerson('signup');
    await page.goto('/sign_up');
    await page.getByLabel('Name').fill(person.name);
    await page.getByLabel('Email').fill(person.email);
    await page.getByLabel('Password', { exact: true }).fill(person.password);
    await page.getByRole('button', { name: 'Create account' }).click();
    await expect(page).toHaveURL(/\/getting-started$/);
    await expect(page.getByRole('link', { name: 'Customers' })).toBeVisible();
  });

  test('shows sign-up server errors as field lines and keeps what was typed', async ({ page, request }) => {
    const existing = await signUpThroughApi(request, newPerson('taken'));
    await page.goto(`/sign_up?email=${encodeURIComponent(existing.email)}`);
    await expect(page.getByLabel('Email')).toHaveValue(existing.email);
    await page.getByLabel('Name').fill('Someone Else');
    await page.getByLabel('Password', { exact: true }).fill('another long passphrase 42');
    await page.getByRole('button', { name: 'Create account' }).click();
    await expect(page.getByText('email has already been taken')).toBeVisible();
    await expect(page.getByLabel('Name')).toHaveValue('Someone Else');
  });

  test('signs out and back in; a wrong password says so', async ({ page, request }) => {
    const person = await signUpThroughApi(request, newPerson('inout'));
    await page.goto('/sign_in');
    await signInThroughForm(page, person.email, 'not the password at all');
    await expect(page.getByText('Email or password is invalid')).toBeVisible();
    await signInThroughForm(page, person.email, person.password);
    await expect(page).toHaveURL(/\/$/);
    await expect(page.getByRole('link', { name: 'Customers' })).toBeVisible();

    await userMenu(page).click();
    await page.getByRole('menuitem', { name: 'Sign out' }).click();
    await expect(page).toHaveURL(/\/sign_in$/);
    await page.goto('/customers');
    await expect(page).toHaveURL(/\/sign_in$/);
  });

  test('resets a forgotten password through the e-mailed link', async ({ page, request }) => {
    const person = await signUpThroughApi(request, newPerson('reset'));
    await page.goto('/reset_password');
    const send = page.getByRole('button', { name: 'Send reset link' });
    await page.getByLabel('Email').fill('not-an-address');
    await expect(send).toBeDisabled();
    await page.getByLabel('Email').fill(person.email);
    await expect(send).toBeEnabled();
    await send.click();

    const link = linkIn(await latestMail(request, person.email));
    expect(link).toMatch(/^\/reset_password\/[\w-]{40,}$/);
    await page.goto(link);
    const newPassword = 'a brand new passphrase 77';
    await page.getByLabel('New password', { exact: true }).fill(newPassword);
    await page.getByLabel('Confirm new password').fill(newPassword);
    await page.getByRole('button', { name: 'Save password and sign in' }).click();
    await expect(page).toHaveURL(/\/$/);

    const old = await request.post('/api/v11/users/sign_in', { data: { user: { email: person.email, password: person.password } } });
    expect(old.status()).toBe(401);
    const renewed = await request.post('/api/v11/users/sign_in', { data: { user: { email: person.email, password: newPassword } } });
    expect(renewed.status()).toBe(200);
  });

  test('invites a colleague who accepts and joins the account', async ({ page, browser, request }) => {
    const owner = await signUpThroughApi(request, newPerson('owner'));
    const colleague = newPerson('colleague');
    await page.goto('/sign_in');
    await signInThroughForm(page, owner.email, owner.password);
    await expect(page).toHaveURL(/\/$/);
    await page.goto('/users');
    await page.getByRole('button', { name: 'Add user' }).first().click();
    const drawer = page.getByRole('dialog', { name: 'Add user' });
    await drawer.getByRole('button', { name: 'Send invite' }).click();
    await expect(drawer.getByText('Required').first()).toBeVisible();
    await drawer.getByLabel('Name').fill(colleague.name);
    await drawer.getByLabel('Email').fill('colleague-at-nowhere');
    await drawer.getByRole('button', { name: 'Send invite' }).click();
    await expect(drawer.getByText('It does not look like a proper email address')).toBeVisible();
    await drawer.getByLabel('Email').fill(colleague.email);
    await drawer.getByRole('button', { name: 'Send invite' }).click();
    await expect(drawer).toBeHidden();
    await expect(page.getByRole('table', { name: 'Users of your account' }).getByText(colleague.email)).toBeVisible();

    const link = linkIn(await latestMail(request, colleague.email));
    const context = await browser.newContext();
    const other = await context.newPage();
    await other.goto(link);
    await expect(other.getByLabel('Email')).toHaveValue(colleague.email);
    await other.getByLabel('Password', { exact: true }).fill(colleague.password);
    await other.getByLabel('Confirm password').fill(colleague.password);
    await other.getByRole('button', { name: 'Accept invitation' }).click();
    await expect(other).toHaveURL(/\/getting-started$/);
    const me = await other.evaluate(async () => {
      const token = localStorage.getItem('subscope.token');
      const response = await fetch('/api/v11/users/me', { headers: { authorization: `Bearer ${token}` } });
      return (await response.json()) as { user: { email: string; account_id: string } };
    });
    const ownerMe = await (await request.get('/api/v11/users/me', { headers: { authorization: `Bearer ${owner.token}` } })).json();
    expect(me.user.account_id).toBe(ownerMe.user.account_id);
    await context.close();
  });

  test('a token that stops working mid-session returns to sign-in, then back to the page the user was on', async ({ page, request }) => {
    const person = await signUpThroughApi(request, newPerson('expiry'));
    await page.goto('/sign_in');
    await page.evaluate((value) => localStorage.setItem('subscope.token', value), person.token);
    await page.goto('/users');
    await expect(page.getByRole('table', { name: 'Users of your account' })).toBeVisible();
    // The same token is signed out from elsewhere (another tab, an admin): the server refuses it
    // from now on, as it refuses an expired one — no waiting on the clock.
    const authorization = { authorization: `Bearer ${person.token}` };
    expect((await request.delete('/api/v11/users/sign_out', { headers: authorization })).status()).toBe(204);
    expect((await request.get('/api/v11/users/me', { headers: authorization })).status()).toBe(401);
    // The next API call meets a 401: the auth machine signs out and remembers /users.
    await page.getByRole('button', { name: 'Add user' }).first().click();
    await page.getByRole('dialog', { name: 'Add user' }).getByLabel('Name').fill('Late Colleague');
    await page.getByRole('dialog', { name: 'Add user' }).getByLabel('Email').fill(newPerson('late').email);
    await page.getByRole('dialog', { name: 'Add user' }).getByRole('button', { name: 'Send invite' }).click();
    await expect(page).toHaveURL(/\/sign_in$/);
    await signInThroughForm(page, person.email, person.password);
    await expect(page).toHaveURL(/\/users$/);
  });
});
