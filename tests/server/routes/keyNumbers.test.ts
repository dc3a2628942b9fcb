import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMonths, dayFromIso, isoFromDay } from '../../../server/metrics/days';
import { createAuthTestApp, expectSignInRequired, sharedReportOnlyColleague, signUp, type AuthTestApp, type SignedUp } from '../auth/support';
import { testEngine } from '../helpers/database';

/** The key numbers strip over the API (the test clock's today is 2026-03-02: a new report shows 2025-04 to 2026-03). */

interface KeyNumber {
  section_id: string;
  definition_id: string;
  title: string;
  value: number | null;
  kind: string;
  unit: string | null;
  currency: string | null;
  time: string | null;
}

let harness: AuthTestApp;
let app: FastifyInstance;
let owner: SignedUp;
let stranger: SignedUp;

const api = (method: 'GET' | 'POST' | 'DELETE', url: string, who?: SignedUp, payload?: unknown) =>
  app.inject({ method, url: `/api/v11${url}`, headers: who ? { authorization: who.authorization } : {}, ...(payload === undefined ? {} : { payload: payload as object }) });

async function report(who: SignedUp, definitions: string[]): Promise<{ id: string; secret: string; sections: { id: string; definition_id: string; title: string }[] }> {
  const created = await api('POST', '/business_reports', who, { title: 'key numbers', sections: definitions.map((definition_id) => ({ definition_id })) });
  expect(created.statusCode, created.body).toBe(201);
  const { id, secret } = created.json() as { id: string; secret: string };
  await app.reports.settled();
  const read = await api('GET', `/business_reports/by_secret?secret=${secret}`, who);
  return { id, secret, sections: (read.json() as { sections: { id: string; definition_id: string; title: string }[] }).sections };
}

const list = async (secret: string, who?: SignedUp) => {
  const response = await api('GET', `/business_reports/by_secret/key_numbers?secret=${secret}`, who);
  expect(response.statusCode, response.body).toBe(200);
  return (response.json() as { items: KeyNumber[] }).items;
};

beforeAll(async () => {
  harness = await createAuthTestApp();
  app = harness.app;
  owner = await signUp(app, { name: 'Ada Owner' });
  stranger = await signUp(app);
  // $100 a month from June 2025 for a year.
  const db = harness.db.kysely;
  const account = owner.user.account_id;
  await db.insertInto('customers').values({ account_id: account, id: 'c1', name: 'Customer c1', public_id: null }).execute();
  await db
    .insertInto('payments')
    .values({ account_id: account, id: 'subh00000000c1a', customer_id: 'c1', started_at: '2025-06-01', ended_at: isoFromDay(addMonths(dayFromIso('2025-06-01'), 12)), duration_in_months: 12, total_value: 120_000, currency: 'USD', invoice_number: null, external_id: null, import_id: null })
    .execute();
});
afterAll(() => harness?.close());

describe(`key numbers on ${testEngine}`, () => {
  it('adds a section’s number of the last complete period, lists it with its title and kind, and removes it', async () => {
    const { secret, sections } = await report(owner, ['mrr', 'customers']);
    const [mrr, customers] = sections;
    if (!mrr || !customers) throw new Error('the report has no sections');
    expect(await list(secret, owner)).toEqual([]);

    const added = await api('POST', '/business_reports/by_secret/key_numbers', owner, { secret, section_id: customers.id, definition_id: 'customers' });
    expect(added.statusCode, added.body).toBe(201);
    await api('POST', '/business_reports/by_secret/key_numbers', owner, { secret, section_id: mrr.id, definition_id: 'mrr' });
    // Twice: still once.
    await api('POST', '/business_reports/by_secret/key_numbers', owner, { secret, section_id: mrr.id, definition_id: 'mrr' });

    const items = await list(secret, owner);
    // In the order they were added; February 2026 is the last complete month on 2026-03-02.
    expect(items).toEqual([
      { section_id: customers.id, definition_id: 'customers', title: 'Customers', value: 1, kind: 'other', unit: 'count', currency: null, time: '2026-02-01' },
      { section_id: mrr.id, definition_id: 'mrr', title: 'MRR', value: 10_000, kind: 'currency', unit: 'minor_units', currency: 'USD', time: '2026-02-01' },
    ]);

    const removed = await api('DELETE', '/business_reports/by_secret/key_numbers', owner, { secret, section_id: customers.id, definition_id: 'customers' });
    expect(removed.statusCode).toBe(204);
    expect((await list(secret, owner)).map((item) => item.definition_id)).toEqual(['mrr']);
    // Removing what is not there changes nothing.
    expect((await api('DELETE', '/business_reports/by_secret/key_numbers', owner, { secret, section_id: customers.id, definition_id: 'customers' })).statusCode).toBe(204);
  });

  it('refuses a section of another report, or a definition the section does not have', async () => {
    const first = await report(owner, ['mrr']);
    const second = await report(owner, ['mrr']);
    const other = second.sections[0];
    if (!other) throw new Error('no section');
    const wrongReport = await api('POST', '/business_reports/by_secret/key_numbers', owner, { secret: first.secret, section_id: other.id, definition_id: 'mrr' });
    expect(wrongReport.statusCode).toBe(404);
    const wrongDefinition = await api('POST', '/business_reports/by_secret/key_numbers', owner, { secret: second.secret, section_id: other.id, definition_id: 'arpa' });
    expect(wrongDefinition.statusCode).toBe(404);
    expect(await list(first.secret, owner)).toEqual([]);
    expect(await list(second.secret, owner)).toEqual([]);
  });

  it('keeps another account’s strip from the caller (404), asks for a sign-in (401), and lets only editors change it', async () => {
    const { secret, sections } = await report(owner, ['mrr']);
    const section = sections[0];
    if (!section) throw new Error('no section');
    const body = { secret, section_id: section.id, definition_id: 'mrr' };
    expect((await api('GET', `/business_reports/by_secret/key_numbers?secret=${secret}`, stranger)).statusCode).toBe(404);
    expect((await api('POST', '/business_reports/by_secret/key_numbers', stranger, body)).statusCode).toBe(404);
    expect((await api('DELETE', '/business_reports/by_secret/key_numbers', stranger, body)).statusCode).toBe(404);
    expectSignInRequired(await api('GET', `/business_reports/by_secret/key_numbers?secret=${secret}`));
    expectSignInRequired(await api('POST', '/business_reports/by_secret/key_numbers', undefined, body));

    // A shared_report_only colleague reads the strip but may not change it.
    const colleague = await sharedReportOnlyColleague(app, harness.db, owner);
    expect(await list(secret, colleague)).toEqual([]);
    expect((await api('POST', '/business_reports/by_secret/key_numbers', colleague, body)).statusCode).toBe(403);
    expect(await list(secret, owner)).toEqual([]);
  });

  it('shows a demo account’s strip to anyone (the public demo), and still only to editors for changes', async () => {
    const { secret, sections } = await report(owner, ['mrr']);
    const section = sections[0];
    if (!section) throw new Error('no section');
    await api('POST', '/business_reports/by_secret/key_numbers', owner, { secret, section_id: section.id, definition_id: 'mrr' });
    expectSignInRequired(await api('GET', `/business_reports/by_secret/key_numbers?secret=${secret}`));
    const accounts = harness.db.kysely.updateTable('accounts').where('id', '=', owner.user.account_id);
    await accounts.set({ is_demo: true }).execute();
    try {
      expect((await list(secret)).map((item) => [item.definition_id, item.value])).toEqual([['mrr', 10_000]]);
      expect((await list(secret, stranger)).map((item) => item.definition_id)).toEqual(['mrr']);
      const body = { secret, section_id: section.id, definition_id: 'mrr' };
      expectSignInRequired(await api('DELETE', '/business_reports/by_secret/key_numbers', undefined, body));
      expect((await api('DELETE', '/business_reports/by_secret/key_numbers', stranger, body)).statusCode).toBe(404);
    } finally {
      await accounts.set({ is_demo: false }).execute();
    }
    expectSignInRequired(await api('GET', `/business_reports/by_secret/key_numbers?secret=${secret}`));
  });
});
