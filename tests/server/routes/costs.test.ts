import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  COST_ATTRIBUTE_NOT_FOUND,
  COST_CURRENCY_REQUIRED,
  COST_CURRENCY_UNKNOWN,
  COST_DATE_INVALID,
  COST_DATE_REQUIRED,
  COST_ID_INVALID,
  COST_ID_PATTERN,
  COST_NOT_FOUND,
  COST_VALUE_NOT_NUMBER,
  COST_VALUE_REQUIRED,
  newCostId,
  type Cost,
} from '../../../models/costs';
import { BAD_CURSOR } from '../../../server/costs/costs';
import { createAuthTestApp, expectSignInRequired, problemsOf, sharedReportOnlyColleague, signUp, type AuthTestApp, type SignedUp } from '../auth/support';
import { testEngine } from '../helpers/database';

/**
 * The costs calls (GET, POST /costs; PUT /costs/upsert/{id}; DELETE /costs/{id}) and what they
 * do to a report: the costs section's current month (the test clock's today is 2026-03-02)
 * follows every add, edit and delete.
 */

interface Section {
  definition_id: string;
  segments: { is_total: boolean; series: { data_points: { time: string; value: number | null }[] }[] }[];
}

let harness: AuthTestApp;
let app: FastifyInstance;
let owner: SignedUp;
let stranger: SignedUp;
let attributeId: string;
let strangersAttributeId: string;
let strangersCost: Cost;
let report: { id: string; secret: string };

const api = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, who: SignedUp | null = owner, payload?: unknown) =>
  app.inject({ method, url: `/api/v11${url}`, headers: who ? { authorization: who.authorization } : {}, ...(payload === undefined ? {} : { payload: payload as object }) });

/** The costs section's value this month once every recalculation finished. */
async function costsThisMonth(): Promise<number | null> {
  await app.reports.settled();
  const response = await api('GET', `/business_reports/by_secret?secret=${report.secret}`);
  expect(response.statusCode, response.body).toBe(200);
  const section = (response.json() as { sections: Section[] }).sections.find((s) => s.definition_id === 'costs') as Section;
  return section.segments.find((s) => s.is_total)?.series[0]?.data_points.at(-1)?.value ?? null;
}

async function attribute(who: SignedUp, name: string): Promise<string> {
  const response = await api('POST', '/object_attributes', who, { name, object: 'cost' });
  expect(response.statusCode, response.body).toBe(201);
  return (response.json() as { id: string }).id;
}

beforeAll(async () => {
  harness = await createAuthTestApp();
  app = harness.app;
  owner = await signUp(app);
  stranger = await signUp(app);
  attributeId = await attribute(owner, 'Category');
  strangersAttributeId = await attribute(stranger, 'Team');
  const created = await api('POST', '/business_reports', owner, { title: 'Costs', sections: [{ definition_id: 'costs' }, { definition_id: 'cac' }] });
  expect(created.statusCode, created.body).toBe(201);
  report = created.json() as { id: string; secret: string };
  const theirs = await api('POST', '/costs', stranger, { value: 999, currency: 'USD', date: '2026-03-01' });
  strangersCost = theirs.json() as Cost;
}, 60_000);
afterAll(() => harness?.close());

describe(`costs on ${testEngine}: who may`, () => {
  it('are for signed-in full users; another account’s cost is 404 and stays as it was', async () => {
    expectSignInRequired(await api('GET', '/costs', null));
    expectSignInRequired(await api('POST', '/costs', null, { value: 1, currency: 'USD', date: '2026-01-01' }));
    expectSignInRequired(await api('PUT', `/costs/upsert/${newCostId()}`, null, { value: 1, currency: 'USD', date: '2026-01-01' }));
    expectSignInRequired(await api('DELETE', `/costs/${strangersCost.id}`, null));
    const colleague = await sharedReportOnlyColleague(app, harness.db, owner);
    expect((await api('GET', '/costs', colleague)).statusCode).toBe(403);
    expect((await api('POST', '/costs', colleague, { value: 1, currency: 'USD', date: '2026-01-01' })).statusCode).toBe(403);

    const deleted = await api('DELETE', `/costs/${strangersCost.id}`);
    expect(deleted.statusCode).toBe(404);
    expect(problemsOf(deleted)).toEqual([{ pointer: '/params/id', detail: COST_NOT_FOUND }]);
    const upserted = await api('PUT', `/costs/upsert/${strangersCost.id}`, owner, { value: 5, currency: 'USD', date: '2025-01-01' });
    expect(upserted.statusCode).toBe(404);
    expect(problemsOf(upserted)).toEqual([{ pointer: '/params/id', detail: COST_NOT_FOUND }]);
    // Another account's attribute in the body: 404.
    const foreign = await api('POST', '/costs', owner, { value: 5, currency: 'USD', date: '2025-01-01', segments: [{ id: strangersAttributeId, value: 'x' }] });
    expect(foreign.statusCode).toBe(404);
    expect(problemsOf(foreign)).toEqual([{ pointer: '/body/segments/0/id', detail: COST_ATTRIBUTE_NOT_FOUND }]);
    const theirs = (await api('GET', '/costs', stranger)).json() as { items: Cost[] };
    expect(theirs.items).toEqual([strangersCost]);
    expect((await api('GET', '/costs')).json()).toEqual({ items: [], next: null });
  });
});

describe(`POST /costs, PUT /costs/upsert/{id}, DELETE /costs/{id} on ${testEngine}`, () => {
  it('adds, edits and deletes a cost, and the costs section of the report follows each change', async () => {
    expect(await costsThisMonth()).toBe(0);
    const created = await api('POST', '/costs', owner, {
      value: 120_020,
      currency: 'usd',
      date: '2026-03-01',
      due_date: '2026-03-31',
      invoice_number: ' FV/1/2026 ',
      name: 'Ads',
      segments: [{ id: attributeId, value: 'Marketing' }],
    });
    expect(created.statusCode, created.body).toBe(201);
    const cost = created.json() as Cost;
    expect(cost.id).toMatch(COST_ID_PATTERN);
    expect(cost).toEqual({
      id: cost.id,
      name: 'Ads',
      value: 120_020,
      currency: 'USD',
      date: '2026-03-01',
      due_date: '2026-03-31',
      invoice_number: 'FV/1/2026',
      segments: [{ id: attributeId, name: 'Category', value: 'Marketing' }],
      source: 'manual',
    });
    expect(await costsThisMonth()).toBe(120_020);

    // Edit: the value moves the section; an attribute value sent empty is removed; omitted optional fields become null.
    const edited = await api('PUT', `/costs/upsert/${cost.id}`, owner, { value: 50_000, currency: 'USD', date: '2026-03-02', segments: [{ id: attributeId, value: '  ' }] });
    expect(edited.statusCode, edited.body).toBe(200);
    expect(edited.json()).toMatchObject({ id: cost.id, value: 50_000, due_date: null, invoice_number: null, name: null, segments: [{ id: attributeId, name: 'Category', value: null }] });
    expect(await harness.db.kysely.selectFrom('cost_segment_values').selectAll().where('cost_id', '=', cost.id).execute()).toEqual([]);
    expect(await costsThisMonth()).toBe(50_000);

    // A client-named new cost.
    const id = newCostId();
    const upserted = await api('PUT', `/costs/upsert/${id}`, owner, { value: 1_000, currency: 'USD', date: '2026-03-01', segments: [{ id: attributeId, value: 'Tools' }] });
    expect(upserted.statusCode, upserted.body).toBe(200);
    expect(upserted.json()).toMatchObject({ id, currency: 'USD', segments: [{ value: 'Tools' }] });
    expect(await costsThisMonth()).toBe(51_000);

    const removed = await api('DELETE', `/costs/${cost.id}`);
    expect(removed.statusCode).toBe(204);
    expect((await api('DELETE', `/costs/${cost.id}`)).statusCode).toBe(404);
    expect(await costsThisMonth()).toBe(1_000);
    expect((await api('DELETE', `/costs/${id}`)).statusCode).toBe(204);
    expect(await costsThisMonth()).toBe(0);
  });

  it.each([
    [{ currency: 'USD', date: '2026-01-01' }, '/body/value', COST_VALUE_REQUIRED],
    [{ value: null, currency: 'USD', date: '2026-01-01' }, '/body/value', COST_VALUE_REQUIRED],
    [{ value: 12.5, currency: 'USD', date: '2026-01-01' }, '/body/value', COST_VALUE_NOT_NUMBER],
    [{ value: -1, currency: 'USD', date: '2026-01-01' }, '/body/value', COST_VALUE_NOT_NUMBER],
    [{ value: 1e300, currency: 'USD', date: '2026-01-01' }, '/body/value', COST_VALUE_NOT_NUMBER],
    [{ value: 1, currency: 'USD' }, '/body/date', COST_DATE_REQUIRED],
    [{ value: 1, currency: 'USD', date: ' ' }, '/body/date', COST_DATE_REQUIRED],
    [{ value: 1, currency: 'USD', date: '2026-02-30' }, '/body/date', COST_DATE_INVALID],
    [{ value: 1, currency: 'USD', date: '2026-02-01', due_date: '01-02-2026' }, '/body/due_date', COST_DATE_INVALID],
    [{ value: 1, date: '2026-02-01' }, '/body/currency', COST_CURRENCY_REQUIRED],
    [{ value: 1, currency: 'XQZ', date: '2026-02-01' }, '/body/currency', COST_CURRENCY_UNKNOWN],
    [{ value: 1, currency: 'USD', date: '2026-02-01', name: 'x'.repeat(256) }, '/body/name', 'At most 255 characters'],
  ])('refuses %j with 422 at %s: %s', async (body, pointer, detail) => {
    for (const [method, url] of [
      ['POST', '/costs'],
      ['PUT', `/costs/upsert/${newCostId()}`],
    ] as const) {
      const response = await api(method, url, owner, body);
      expect(response.statusCode, response.body).toBe(422);
      expect(problemsOf(response)).toEqual([{ pointer, detail }]);
    }
  });

  it('answers every problem of a body at once, and answers 404 for an id no cost can have', async () => {
    const response = await api('POST', '/costs', owner, {});
    expect(response.statusCode).toBe(422);
    expect(problemsOf(response).map((p) => p.detail)).toEqual([COST_VALUE_REQUIRED, COST_CURRENCY_REQUIRED, COST_DATE_REQUIRED]);
    const badId = await api('PUT', '/costs/upsert/subh123456789012', owner, { value: 1, currency: 'USD', date: '2026-01-01' });
    expect(badId.statusCode).toBe(404);
    expect(problemsOf(badId)).toEqual([{ pointer: '/params/id', detail: COST_ID_INVALID }]);
  });

  it('takes NUL bytes, wrong types and huge strings without a 5xx', async () => {
    const bodies: unknown[] = [
      { value: 'abc', currency: 'USD', date: '2026-01-01' },
      { value: 1, currency: 'U\u0000D', date: '2026-01-01' },
      { value: 1, currency: 'USD', date: '2026\u0000-01-01' },
      { value: 1, currency: 'USD', date: '2026-01-01', invoice_number: 'a\u0000b', name: '\u0000' },
      { value: 1, currency: 'USD', date: '2026-01-01', segments: [{ id: '\u0000', value: 'x' }] },
      { value: 1, currency: 'USD', date: '2026-01-01', name: 'x'.repeat(100_000) },
      { value: [1], currency: { iso: 'USD' }, date: 20260101 },
      [],
      'text',
    ];
    for (const body of bodies) {
      const response = await api('POST', '/costs', owner, body);
      expect(response.statusCode, JSON.stringify(body)).toBeGreaterThanOrEqual(200);
      expect(response.statusCode, response.body).toBeLessThan(500);
    }
    const nul = await api('POST', '/costs', owner, { value: 1, currency: 'USD', date: '2026-01-01', invoice_number: 'a\u0000b' });
    expect(nul.statusCode).toBe(400);
    expect(problemsOf(await api('POST', '/costs', owner, { value: '12', currency: 'USD', date: '2026-01-01' }))).toEqual([{ pointer: '/body/value', detail: COST_VALUE_NOT_NUMBER }]);
    for (const url of ['/costs?next=%00', '/costs?sort_by=name:asc', '/costs?limit=0', '/costs?limit=abc']) {
      const response = await api('GET', url);
      expect(response.statusCode, `${url}: ${response.body}`).toBe(400);
    }
    for (const next of ['bm90IGpzb24', 'probe', encodeURIComponent(Buffer.from(JSON.stringify({ k: 'x', id: 'y' })).toString('base64url'))]) {
      expect(problemsOf(await api('GET', `/costs?next=${next}`))).toEqual([{ pointer: '/querystring/next', detail: BAD_CURSOR }]);
    }
  });
});

describe(`GET /costs on ${testEngine}`, () => {
  it('pages by date or value in either order, ties by id, every cost once', async () => {
    await harness.db.kysely.deleteFrom('costs').where('account_id', '=', owner.user.account_id).execute();
    const days = ['2025-05-01', '2025-06-15', '2025-06-15', '2025-07-01', '2025-04-30', '2025-06-15', '2025-08-09'];
    const made: Cost[] = [];
    for (const [k, date] of days.entries()) {
      const response = await api('POST', '/costs', owner, { value: (k % 3) * 100, currency: k % 2 ? 'PLN' : 'EUR', date, invoice_number: `INV-${k}` });
      made.push(response.json() as Cost);
    }
    const walk = async (sort: string) => {
      const seen: Cost[] = [];
      let next: string | null = null;
      let pages = 0;
      do {
        const query: string = `/costs?limit=3&sort_by=${sort}${next ? `&next=${encodeURIComponent(next)}` : ''}`;
        const response = await api('GET', query);
        expect(response.statusCode, response.body).toBe(200);
        const page = response.json() as { items: Cost[]; next: string | null };
        expect(page.items.length).toBeLessThanOrEqual(3);
        seen.push(...page.items);
        next = page.next;
        pages++;
      } while (next);
      expect(pages).toBe(3);
      return seen;
    };
    const key = (field: 'date' | 'value') => (cost: Cost) => `${field === 'date' ? cost.date : String(cost.value).padStart(6, '0')} ${cost.id}`;
    const sorted = (field: 'date' | 'value', order: 'asc' | 'desc') => [...made].sort((a, b) => (key(field)(a) < key(field)(b) ? -1 : 1) * (order === 'asc' ? 1 : -1)).map((c) => c.id);
    for (const field of ['date', 'value'] as const) {
      for (const order of ['asc', 'desc'] as const) expect((await walk(`${field}:${order}`)).map((c) => c.id)).toEqual(sorted(field, order));
    }
    // The default: newest first.
    const first = (await api('GET', '/costs')).json() as { items: Cost[]; next: string | null };
    expect(first.items.map((c) => c.id)).toEqual(sorted('date', 'desc'));
    expect(first.next).toBeNull();
  });
});
