import type { APIRequestContext, Page } from '@playwright/test';
import { randomBytes } from 'node:crypto';
import { expect } from './test';

/** A fresh identity per test, so no test depends on another's data. */
export function newPerson(prefix = 'user') {
  const id = randomBytes(5).toString('hex');
  return { name: `${prefix} ${id}`, email: `${prefix}-${id}@example.test`, password: `Correct horse ${id} battery` };
}

export interface OutboxMail {
  to: string;
  subject: string;
  text: string;
}

/** The newest e-mail sent to `to` (the server keeps e-mail in its outbox when SMTP is not set). */
export async function latestMail(request: APIRequestContext, to: string): Promise<OutboxMail> {
  let mail: OutboxMail | undefined;
  await expect
    .poll(
      async () => {
        const response = await request.get(`/api/v11/dev/outbox?to=${encodeURIComponent(to)}`);
        const { items } = (await response.json()) as { items: OutboxMail[] };
        mail = items[0];
        return items.length;
      },
      { message: `an e-mail to ${to}` },
    )
    .toBeGreaterThan(0);
  return mail!;
}

/** The first link in an e-mail, made relative so it opens on the server under test. */
export function linkIn(mail: OutboxMail): string {
  const match = /https?:\/\/[^\s"<>]+/.exec(mail.text);
  if (!match) throw new Error(`no link in: ${mail.text}`);
  const url = new URL(match[0]);
  return url.pathname + url.search;
}

export async function signUpThroughApi(request: APIRequestContext, person = newPerson()) {
  const response = await request.post('/api/v11/users', {
    data: { user: { email: person.email, password: person.password, name: person.name } },
  });
  expect(response.status()).toBe(201);
  return { ...person, token: (response.headers()['authorization'] ?? '').replace(/^Bearer /, '') };
}

export async function signInThroughForm(page: Page, email: string, password: string) {
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

/** A new account's owner, signed up through the API and signed in through the form (each test works in its own account). */
export async function signInAsNewOwner(page: Page, request: APIRequestContext, prefix: string) {
  const person = await signUpThroughApi(request, newPerson(prefix));
  await page.goto('/sign_in');
  await signInThroughForm(page, person.email, person.password);
  await expect(page).toHaveURL(/\/$/);
  return person;
}
