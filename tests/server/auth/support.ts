import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import { buildApp, type AppOptions } from '../../../server/app';
import { TEST_CONFIG } from '../helpers/app';
import { createTestDatabase, type TestDatabase } from '../helpers/database';

/** A clock the test moves by hand: token expiry and throttle windows without sleeping. */
export class TestClock {
  private current: number;

  constructor(start = '2026-03-02T09:00:00Z') {
    this.current = Date.parse(start);
  }

  readonly now = (): Date => new Date(this.current);

  advance(ms: number): void {
    this.current += ms;
  }
}

export const MINUTE = 60_000;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;

export interface AuthTestApp {
  app: FastifyInstance;
  db: TestDatabase;
  clock: TestClock;
  close(): Promise<void>;
}

/** The real app on a fresh database, with a hand-moved clock. */
export async function createAuthTestApp(options: Partial<Omit<AppOptions, 'db' | 'now'>> = {}): Promise<AuthTestApp> {
  const db = await createTestDatabase();
  const clock = new TestClock();
  const app = await buildApp({ config: TEST_CONFIG, ...options, db, now: clock.now });
  await app.ready();
  return {
    app,
    db,
    clock,
    close: async () => {
      await app.close();
      await db.close();
    },
  };
}

export const PASSWORD = 'quiet-orbit-lantern-42';

let sequence = 0;
/** A fresh e-mail address, so tests of one file never share a user or a throttle count. */
export function uniqueEmail(label = 'user'): string {
  sequence += 1;
  return `${label}.${sequence}.${Math.random().toString(36).slice(2, 8)}@example.com`;
}

export interface ApiUser {
  id: string;
  email: string;
  name: string;
  account_id: string;
  permission_level: 'user' | 'shared_report_only';
  currency: string;
  customer_columns: Array<Record<string, unknown>>;
  invitation_pending: boolean;
  api_token?: string;
}

export interface ErrorEntry {
  source?: { pointer: string };
  detail: string;
  title: string;
  status: string;
  code?: string;
}

export function errorsOf(response: LightMyRequestResponse): ErrorEntry[] {
  return (response.json() as { errors: ErrorEntry[] }).errors;
}

/** `{pointer, detail}` of each error entry, for compact assertions. */
export function problemsOf(response: LightMyRequestResponse): Array<{ pointer: string | undefined; detail: string }> {
  return errorsOf(response).map((entry) => ({ pointer: entry.source?.pointer, detail: entry.detail }));
}

export const SIGN_IN_REQUIRED = 'You need to sign in or sign up before continuing.';

/** Asserts the one 401 answer every refused token gets. */
export function expectSignInRequired(response: LightMyRequestResponse): void {
  expect(response.statusCode).toBe(401);
  expect(response.json()).toEqual({ errors: [{ detail: SIGN_IN_REQUIRED, title: 'Unauthorized', status: '401' }] });
}

export interface SignedUp {
  email: string;
  password: string;
  /** The `Authorization` header value the server answered: `Bearer <jwt>`. */
  authorization: string;
  user: ApiUser;
}

/** Signs up a new account owner through the API. */
export async function signUp(app: FastifyInstance, fields: { email?: string; password?: string; name?: string } = {}): Promise<SignedUp> {
  const email = fields.email ?? uniqueEmail('owner');
  const password = fields.password ?? PASSWORD;
  const response = await app.inject({
    method: 'POST',
    url: '/api/v11/users',
    payload: { user: { email, password, name: fields.name ?? 'Owner' } },
  });
  expect(response.statusCode, response.body).toBe(201);
  const authorization = response.headers.authorization;
  if (typeof authorization !== 'string') throw new Error('sign-up answered no Authorization header');
  return { email, password, authorization, user: (response.json() as { user: ApiUser }).user };
}

export function signIn(app: FastifyInstance, email: string, password: string, remoteAddress?: string): Promise<LightMyRequestResponse> {
  return app.inject({
    method: 'POST',
    url: '/api/v11/users/sign_in',
    payload: { user: { email, password } },
    ...(remoteAddress ? { remoteAddress } : {}),
  });
}

export function getMe(app: FastifyInstance, authorization: string | undefined): Promise<LightMyRequestResponse> {
  return app.inject({ method: 'GET', url: '/api/v11/users/me', headers: authorization === undefined ? {} : { authorization } });
}

export interface OutboxEmail {
  id: number;
  to: string;
  subject: string;
  text: string;
  html: string | null;
  created_at: string;
}

export async function outboxFor(app: FastifyInstance, to: string): Promise<OutboxEmail[]> {
  const response = await app.inject({ method: 'GET', url: '/api/v11/dev/outbox', query: { to } });
  expect(response.statusCode).toBe(200);
  return (response.json() as { items: OutboxEmail[] }).items;
}

/** The token of the newest e-mailed link of a kind (`/reset_password/<token>`, `/invitation/<token>`). */
export async function linkTokenFor(app: FastifyInstance, to: string, kind: 'reset_password' | 'invitation'): Promise<string> {
  const [latest] = await outboxFor(app, to);
  const match = latest && new RegExp(`https?://[^\\s/]+/${kind}/([A-Za-z0-9_-]+)`).exec(latest.text);
  if (!match?.[1]) throw new Error(`no ${kind} link was e-mailed to ${to}`);
  return match[1];
}

/** Makes a user `shared_report_only` (no API call does that yet). */
export async function makeSharedReportOnly(db: TestDatabase, userId: string): Promise<void> {
  await db.kysely.updateTable('users').set({ permission_level: 'shared_report_only' }).where('id', '=', userId).execute();
}

/**
 * A `shared_report_only` colleague of `owner`: signed up, moved into the owner's account with
 * that permission level, and signed in again (a token names its account).
 */
export async function sharedReportOnlyColleague(app: FastifyInstance, db: TestDatabase, owner: SignedUp): Promise<SignedUp> {
  const signedUp = await signUp(app);
  await db.kysely.updateTable('users').set({ account_id: owner.user.account_id }).where('id', '=', signedUp.user.id).execute();
  await makeSharedReportOnly(db, signedUp.user.id);
  const signedIn = await signIn(app, signedUp.email, signedUp.password);
  expect(signedIn.statusCode, signedIn.body).toBe(200);
  return { ...signedUp, authorization: String(signedIn.headers.authorization) };
}
