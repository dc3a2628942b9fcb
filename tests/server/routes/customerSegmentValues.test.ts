import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SEGMENT_HISTORY_ENTRIES } from '../../../models/constants';
import { createAuthTestApp, expectSignInRequired, sharedReportOnlyColleague, signUp, type AuthTestApp, type SignedUp } from '../auth/support';
import { testEngine } from '../helpers/database';

/** A customer's values of one attribute: GET the last 12 entries newest first, PUT a value from a month on (the test clock's today is 2026-03-02). */

let harness: AuthTestApp;
let app: FastifyInstance;
let owner: SignedUp;
let stranger: SignedUp;

type Entry = { year: number; month: number; value: string | null };
const api = (method: 'GET' | 'PUT', url: string, who: SignedUp | null = owner, payload?: unknown) =>
  app.inject({ method, url: `/api/v11${url}`, headers: who ? { authorization: who.authorization } : {}, ...(payload === undefined ? {} : { payload: payload as object }) });
const history = async (customer: string, segment: string) => {
  const response = await api('GET', `/customer_segment_values/${customer}/${segment}`);
  expect(response.statusCode, response.body).toBe(200);
  return (response.json() as { items: Entry[] }).items;
};

beforeAll(async () => {
  harness = await createAuthTestApp();
  app = harness.app;
  owner = await signUp(app);
  stranger = await signUp(app);
  const db = harness.db.kysely;
  for (const who of [owner, stranger]) {
    const account = who.user.account_id;
    await db.insertInto('customers').values({ account_id: account, id: who === owner ? 'c1' : 'x1', name: 'C', public_id: null }).execute();
    await db.insertInto('object_attributes').values([
      { account_id: account, id: `${account}-a1`, name: 'Plan', object: 'customer' },
      { account_id: account, id: `${account}-a2`, name: 'Country', object: 'customer' },
    ]).execute();
  }
  const account = owner.user.account_id;
  await db.insertInto('customer_segments').values([
    { account_id: account, id: 'plan', object_attribute_id: `${account}-a1`, name: 'Plan', time_sensitive: true },
    { account_id: account, id: 'country', object_attribute_id: `${account}-a2`, name: 'Country', time_sensitive: false },
  ]).execute();
  await db.insertInto('customer_segments').values({ account_id: stranger.user.account_id, id: 'their-plan', object_attribute_id: `${stranger.user.account_id}-a1`, name: 'Plan', time_sensitive: true }).execute();
  // Fourteen months of plan values: 2025-01 .. 2026-02.
  await db
    .insertInto('customer_segment_values')
    .values(Array.from({ length: 14 }, (_, k) => ({ account_id: account, customer_id: 'c1', segment_id: 'plan', year: 2025 + Math.floor(k / 12), month: (k % 12) + 1, value: `v${k}` })))
    .execute();
});
afterAll(() => harness?.close());

describe(`GET/PUT /customer_segment_values/{customerId}/{segmentId} on ${testEngine}`, () => {
  it('answers the last entries, newest first', async () => {
    const items = await history('c1', 'plan');
    expect(items).toHaveLength(SEGMENT_HISTORY_ENTRIES);
    expect(items[0]).toEqual({ year: 2026, month: 2, value: 'v13' });
    expect(items.at(-1)).toEqual({ year: 2025, month: 3, value: 'v2' });
    expect(await history('c1', 'country')).toEqual([]);
  });

  it('sets a time-sensitive value from a month on (later entries go) and replaces one that is not', async () => {
    const set = await api('PUT', '/customer_segment_values/c1/plan', owner, { year: 2025, month: 12, value: 'Gold' });
    expect(set.statusCode, set.body).toBe(200);
    const items = (set.json() as { items: Entry[] }).items;
    expect(items.slice(0, 2)).toEqual([{ year: 2025, month: 12, value: 'Gold' }, { year: 2025, month: 11, value: 'v10' }]);
    expect((await api('GET', '/customers/c1')).json()).toMatchObject({ segments: expect.arrayContaining([{ segment: { id: 'plan', name: 'Plan', time_sensitive: true }, value: 'Gold' }]) });
    await api('PUT', '/customer_segment_values/c1/country', owner, { year: 2024, month: 5, value: 'PL' });
    const country = await api('PUT', '/customer_segment_values/c1/country', owner, { year: 2026, month: 3, value: 'DE' });
    expect(country.json()).toEqual({ items: [{ year: 2026, month: 3, value: 'DE' }] });
    const cleared = await api('PUT', '/customer_segment_values/c1/country', owner, { year: 2026, month: 3, value: '' });
    expect(cleared.json()).toEqual({ items: [{ year: 2026, month: 3, value: null }] });
  });

  it('validates the month and year', async () => {
    for (const body of [{ year: 2026, month: 13, value: 'x' }, { year: 2026, month: 0, value: 'x' }, { year: 10_000, month: 1, value: 'x' }, { year: 2026, month: 1, value: 'a\u0000b' }, { year: 2026, month: 1 }]) {
      expect((await api('PUT', '/customer_segment_values/c1/plan', owner, body)).statusCode, JSON.stringify(body)).toBe(400);
    }
  });

  it('is for full users, and another account’s customer or attribute is 404', async () => {
    expectSignInRequired(await api('GET', '/customer_segment_values/c1/plan', null));
    const colleague = await sharedReportOnlyColleague(app, harness.db, owner);
    expect((await api('GET', '/customer_segment_values/c1/plan', colleague)).statusCode).toBe(403);
    for (const path of ['x1/plan', 'c1/their-plan', 'x1/their-plan', 'nobody/plan', 'c1/nothing']) {
      expect((await api('GET', `/customer_segment_values/${path}`)).statusCode, path).toBe(404);
      expect((await api('PUT', `/customer_segment_values/${path}`, owner, { year: 2026, month: 1, value: 'x' })).statusCode, path).toBe(404);
    }
    expect(await harness.db.kysely.selectFrom('customer_segment_values').select('value').where('account_id', '=', stranger.user.account_id).execute()).toEqual([]);
  });
});
