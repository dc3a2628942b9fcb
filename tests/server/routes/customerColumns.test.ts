import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  COLUMN_NAME_REQUIRED_MESSAGE,
  END_MONTH_REQUIRED_MESSAGE,
  END_YEAR_REQUIRED_MESSAGE,
  FETCHER_REQUIRED_MESSAGE,
  FORMULA_DIVIDES_BY_ZERO_MESSAGE,
  FORMULA_REQUIRED_MESSAGE,
  FROM_AFTER_TO_MESSAGE,
  START_MONTH_REQUIRED_MESSAGE,
  START_YEAR_REQUIRED_MESSAGE,
} from '../../../models/customerColumns';
import { addMonths, dayFromIso, isoFromDay } from '../../../server/metrics/days';
import { createAuthTestApp, expectSignInRequired, getMe, problemsOf, sharedReportOnlyColleague, signIn, signUp, type AuthTestApp, type SignedUp } from '../auth/support';
import { testEngine } from '../helpers/database';

/** Calculated customer columns: the definitions' calls, the job's values, and the users/me column list (the test clock's today is 2026-03-02). */

interface Definition {
  id: string;
  name: string;
  formula: string;
  variables: { fetcher: string; name: string; start_month: number; start_year: number; end_month: number; end_year: number }[];
  recalculation_status: string;
  created_at: string;
  updated_at: string;
}
interface Column {
  id: string;
  name: string;
  source: string;
  visible: boolean;
  sortable: boolean;
  data_type: string;
  definition?: Definition;
}

let harness: AuthTestApp;
let app: FastifyInstance;
let owner: SignedUp;
let colleague: SignedUp;
let stranger: SignedUp;
let account: string;

const api = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, who?: SignedUp, payload?: unknown) =>
  app.inject({ method, url: `/api/v11${url}`, headers: who ? { authorization: who.authorization } : {}, ...(payload === undefined ? {} : { payload: payload as object }) });

const tcv2025 = { fetcher: 'BookedTotalContractValue', name: 'tcv', start_month: 1, start_year: 2025, end_month: 12, end_year: 2025 };
const mrrDec2025 = { fetcher: 'Mrr', name: 'mrr', start_month: 12, start_year: 2025, end_month: null, end_year: null };
const ratio = { name: 'Bookings per MRR', formula: 'tcv / mrr', variables: [tcv2025, mrrDec2025] };

async function payment(accountId: string, id: string, customer: string, start: string, months: number, total: number) {
  const db = harness.db.kysely;
  await db.insertInto('products').values({ account_id: accountId, key: 'pro', name: 'pro' }).onConflict((c) => c.doNothing()).execute();
  await db
    .insertInto('payments')
    .values({ account_id: accountId, id, customer_id: customer, started_at: start, ended_at: isoFromDay(addMonths(dayFromIso(start), months)), duration_in_months: months, total_value: total, currency: 'USD', invoice_number: null, external_id: null, import_id: null })
    .execute();
  await db.insertInto('payment_items').values({ account_id: accountId, payment_id: id, product_key: 'pro', type: 'recurring', quantity: 1 }).execute();
}

async function values(definitionId: string): Promise<Record<string, number | null>> {
  const rows = await harness.db.kysely.selectFrom('customer_column_values').select(['customer_id', 'value']).where('definition_id', '=', definitionId).execute();
  return Object.fromEntries(rows.map((row) => [row.customer_id, row.value === null ? null : Number(row.value)]));
}

async function create(body: unknown = ratio, who: SignedUp = owner): Promise<Definition> {
  const response = await api('POST', '/customer_related_metric_definitions', who, body);
  expect(response.statusCode, response.body).toBe(201);
  return response.json() as Definition;
}

async function columnsOf(who: SignedUp): Promise<Column[]> {
  const response = await getMe(app, who.authorization);
  expect(response.statusCode, response.body).toBe(200);
  return (response.json() as { user: { customer_columns: Column[] } }).user.customer_columns;
}

beforeAll(async () => {
  harness = await createAuthTestApp();
  app = harness.app;
  owner = await signUp(app);
  stranger = await signUp(app);
  account = owner.user.account_id;
  // A second full user of the owner's account.
  const other = await signUp(app);
  await harness.db.kysely.updateTable('users').set({ account_id: account }).where('id', '=', other.user.id).execute();
  const signedIn = await signIn(app, other.email, other.password);
  colleague = { ...other, authorization: String(signedIn.headers.authorization) };

  const db = harness.db.kysely;
  await db
    .insertInto('customers')
    .values([
      { account_id: account, id: 'alpha', name: 'Alpha', public_id: null },
      { account_id: account, id: 'bravo', name: 'Bravo', public_id: null },
      { account_id: account, id: 'charlie', name: 'Charlie', public_id: null },
      { account_id: account, id: 'excluded', name: 'Excluded', public_id: null, include_in_calculations_by_default: false },
      { account_id: account, id: 'gone', name: 'Gone', public_id: null, deleted_at: '2026-01-01T00:00:00Z' },
    ])
    .execute();
  await db.insertInto('object_attributes').values({ account_id: account, id: 'att-plan', name: 'Plan', object: 'customer' }).execute();
  await db.insertInto('customer_segments').values({ account_id: account, id: 'seg-plan', object_attribute_id: 'att-plan', name: 'Plan', time_sensitive: false }).execute();
  // Alpha: $100 a month for a year from 2025-06 ($1,200 booked in 2025); Bravo: $20 a month for
  // six months from 2025-12 ($120 booked in 2025) and $50 booked in 2024 (outside the range);
  // Charlie pays nothing; Excluded pays but is left out of every number.
  await payment(account, 'pay-alpha-1', 'alpha', '2025-06-01', 12, 120_000);
  await payment(account, 'pay-bravo-1', 'bravo', '2025-12-01', 6, 12_000);
  await payment(account, 'pay-bravo-0', 'bravo', '2024-11-15', 1, 5_000);
  await payment(account, 'pay-excl-1', 'excluded', '2025-03-01', 12, 24_000);
  await payment(account, 'pay-gone-1', 'gone', '2025-03-01', 12, 24_000);
  await db.insertInto('customers').values({ account_id: stranger.user.account_id, id: 'x1', name: 'Elsewhere', public_id: null }).execute();
});
afterAll(() => harness?.close());

describe(`POST /api/v11/customer_related_metric_definitions on ${testEngine}`, () => {
  it('stores the definition in progress, computes every customer’s value, then is finished', async () => {
    const created = await create();
    expect(created).toMatchObject({
      name: 'Bookings per MRR',
      formula: 'tcv / mrr',
      recalculation_status: 'in_progress',
      // An Mrr variable's To is its From.
      variables: [tcv2025, { ...mrrDec2025, end_month: 12, end_year: 2025 }],
    });
    await app.customerColumns.settled();
    const list = (await api('GET', '/customer_related_metric_definitions', owner)).json() as { items: Definition[] };
    expect(list.items.find((item) => item.id === created.id)?.recalculation_status).toBe('finished');
    // Alpha 120,000 / 10,000; Bravo 12,000 / 2,000; Charlie 0 / 0 and Excluded (0 / 0) have no value (no row), nor has the deleted customer.
    expect(await values(created.id)).toEqual({ alpha: 12, bravo: 6 });
  });

  it('makes a single variable’s name the formula, and measures MRR of the current month on today', async () => {
    const created = await create({ name: 'MRR now', formula: 'ignored', variables: [{ ...mrrDec2025, name: 'now', start_month: 3, start_year: 2026 }] });
    expect(created.formula).toBe('now');
    await app.customerColumns.settled();
    expect(await values(created.id)).toEqual({ alpha: 10_000, bravo: 2_000, charlie: 0, excluded: 0 });
  });

  it('appends the new column, visible, to the creator’s columns, and hidden to a colleague’s', async () => {
    const created = await create({ ...ratio, name: 'Appended' });
    await app.customerColumns.settled();
    const mine = await columnsOf(owner);
    expect(mine.at(-1)).toMatchObject({ id: `definition:${created.id}`, name: 'Appended', source: 'definition', visible: true, sortable: true, data_type: 'number', definition: { id: created.id, recalculation_status: 'finished' } });
    const theirs = await columnsOf(colleague);
    expect(theirs.find((column) => column.id === `definition:${created.id}`)?.visible).toBe(false);
  });

  it.each([
    ['a blank name', { ...ratio, name: '  ' }, [{ pointer: '/body/name', detail: COLUMN_NAME_REQUIRED_MESSAGE }]],
    ['two variables without a formula', { ...ratio, formula: ' ' }, [{ pointer: '/body/formula', detail: FORMULA_REQUIRED_MESSAGE }]],
    ['a division by zero', { ...ratio, formula: 'tcv / 0' }, [{ pointer: '/body/formula', detail: FORMULA_DIVIDES_BY_ZERO_MESSAGE }]],
    ['an unknown variable', { ...ratio, formula: 'tcv / x' }, [{ pointer: '/body/formula', detail: 'Unknown variable: x' }]],
    [
      'a variable with nothing set',
      { name: 'Column', formula: '', variables: [{ fetcher: null, name: 'v', start_month: null, start_year: null, end_month: null, end_year: null }] },
      [
        { pointer: '/body/variables/0/fetcher', detail: FETCHER_REQUIRED_MESSAGE },
        { pointer: '/body/variables/0/start_month', detail: START_MONTH_REQUIRED_MESSAGE },
        { pointer: '/body/variables/0/start_year', detail: START_YEAR_REQUIRED_MESSAGE },
        { pointer: '/body/variables/0/end_month', detail: END_MONTH_REQUIRED_MESSAGE },
        { pointer: '/body/variables/0/end_year', detail: END_YEAR_REQUIRED_MESSAGE },
      ],
    ],
    ['From after To', { ...ratio, variables: [{ ...tcv2025, start_year: 2026 }, mrrDec2025] }, [{ pointer: '/body/variables/0/start_month', detail: FROM_AFTER_TO_MESSAGE }]],
  ])('answers 422 for %s, and stores nothing', async (_case, body, problems) => {
    const before = await harness.db.kysely.selectFrom('customer_column_definitions').select('id').where('account_id', '=', account).execute();
    const response = await api('POST', '/customer_related_metric_definitions', owner, body);
    expect(response.statusCode, response.body).toBe(422);
    expect(problemsOf(response)).toEqual(problems);
    const after = await harness.db.kysely.selectFrom('customer_column_definitions').select('id').where('account_id', '=', account).execute();
    expect(after).toHaveLength(before.length);
  });

  it('answers 400 for a malformed body', async () => {
    const response = await api('POST', '/customer_related_metric_definitions', owner, { name: 'x', variables: 'tcv' });
    expect(response.statusCode).toBe(400);
  });

  it('answers 401 without a token and 403 to a shared-report-only user', async () => {
    expectSignInRequired(await api('POST', '/customer_related_metric_definitions', undefined, ratio));
    expectSignInRequired(await api('GET', '/customer_related_metric_definitions'));
    const viewer = await sharedReportOnlyColleague(app, harness.db, owner);
    expect((await api('GET', '/customer_related_metric_definitions', viewer)).statusCode).toBe(403);
    expect((await api('POST', '/customer_related_metric_definitions', viewer, ratio)).statusCode).toBe(403);
  });
});

describe(`GET /api/v11/customer_related_metric_definitions on ${testEngine}`, () => {
  it('lists the account’s definitions only', async () => {
    const theirs = await create({ ...ratio, name: 'Theirs' }, stranger);
    await app.customerColumns.settled();
    const mine = (await api('GET', '/customer_related_metric_definitions', owner)).json() as { items: Definition[] };
    expect(mine.items.length).toBeGreaterThan(0);
    expect(mine.items.map((item) => item.id)).not.toContain(theirs.id);
  });
});

describe(`PUT /api/v11/customer_related_metric_definitions/{id} on ${testEngine}`, () => {
  it('changes the definition and recomputes its values', async () => {
    const created = await create({ ...ratio, name: 'To change' });
    await app.customerColumns.settled();
    const response = await api('PUT', `/customer_related_metric_definitions/${created.id}`, owner, { ...ratio, name: 'Changed', formula: 'tcv - mrr * 2' });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toMatchObject({ id: created.id, name: 'Changed', formula: 'tcv - mrr * 2', recalculation_status: 'in_progress' });
    await app.customerColumns.settled();
    expect(await values(created.id)).toEqual({ alpha: 100_000, bravo: 8_000, charlie: 0, excluded: 0 });
  });

  it('answers 409 while the column is being calculated (edit and delete), and 422 before anything is stored', async () => {
    const created = await create({ ...ratio, name: 'Busy' });
    await app.customerColumns.settled();
    await harness.db.kysely.updateTable('customer_column_definitions').set({ recalculation_status: 'in_progress' }).where('id', '=', created.id).execute();
    expect((await api('PUT', `/customer_related_metric_definitions/${created.id}`, owner, ratio)).statusCode).toBe(409);
    expect((await api('DELETE', `/customer_related_metric_definitions/${created.id}`, owner)).statusCode).toBe(409);
    await harness.db.kysely.updateTable('customer_column_definitions').set({ recalculation_status: 'finished' }).where('id', '=', created.id).execute();
    const invalid = await api('PUT', `/customer_related_metric_definitions/${created.id}`, owner, { ...ratio, formula: 'tcv / (mrr - mrr) / 0' });
    expect(invalid.statusCode).toBe(422);
    expect(problemsOf(invalid)).toEqual([{ pointer: '/body/formula', detail: FORMULA_DIVIDES_BY_ZERO_MESSAGE }]);
    const stored = await harness.db.kysely.selectFrom('customer_column_definitions').select('formula').where('id', '=', created.id).executeTakeFirstOrThrow();
    expect(stored.formula).toBe('tcv / mrr');
  });

  it("answers 404 for another account's column and an unknown one", async () => {
    const theirs = await create({ ...ratio, name: 'Not yours' }, stranger);
    await app.customerColumns.settled();
    expect((await api('PUT', `/customer_related_metric_definitions/${theirs.id}`, owner, ratio)).statusCode).toBe(404);
    expect((await api('PUT', '/customer_related_metric_definitions/nope', owner, ratio)).statusCode).toBe(404);
    expect((await api('DELETE', `/customer_related_metric_definitions/${theirs.id}`, owner)).statusCode).toBe(404);
  });
});

describe(`DELETE /api/v11/customer_related_metric_definitions/{id} on ${testEngine}`, () => {
  it('deletes the column and its values; it leaves the users’ columns', async () => {
    const created = await create({ ...ratio, name: 'To delete' });
    await app.customerColumns.settled();
    const response = await api('DELETE', `/customer_related_metric_definitions/${created.id}`, owner);
    expect(response.statusCode).toBe(204);
    expect(await values(created.id)).toEqual({});
    expect((await columnsOf(owner)).map((column) => column.id)).not.toContain(`definition:${created.id}`);
    expect((await api('DELETE', `/customer_related_metric_definitions/${created.id}`, owner)).statusCode).toBe(404);
  });
});

describe(`app.customerColumns.refreshIfStale on ${testEngine}`, () => {
  it('recomputes the columns after the account’s data changed, and does nothing when they are current', async () => {
    const created = await create({ ...ratio, name: 'Stale' });
    await app.customerColumns.settled();
    expect(await app.customerColumns.refreshIfStale(account)).toEqual([]);
    // Charlie starts paying $30 a month in 2025-12 ($360 booked for a year).
    await payment(account, 'pay-charlie-1', 'charlie', '2025-12-01', 12, 36_000);
    const started = await app.customerColumns.refreshIfStale(account);
    expect(started).toContain(created.id);
    const during = (await api('GET', '/customer_related_metric_definitions', owner)).json() as { items: Definition[] };
    expect(during.items.every((item) => ['in_progress', 'finished'].includes(item.recalculation_status))).toBe(true);
    await app.customerColumns.settled();
    expect((await values(created.id)).charlie).toBe(12);
    expect(await app.customerColumns.refreshIfStale(account)).toEqual([]);
  });
});

describe(`GET/PUT /api/v11/users/me customer_columns on ${testEngine}`, () => {
  it('answers the default columns to a user who never chose: statics and metrics visible, attributes and calculated columns hidden', async () => {
    const fresh = await signUp(app);
    const columns = await columnsOf(fresh);
    expect(columns).toEqual([
      { id: 'name', name: 'Name', source: 'static', visible: true, sortable: true, data_type: 'string' },
      { id: 'public_id', name: 'Public ID', source: 'static', visible: true, sortable: true, data_type: 'string' },
      { id: 'added_at', name: 'Added at', source: 'static', visible: true, sortable: true, data_type: 'date' },
      { id: 'mrr', name: 'MRR', source: 'definition', visible: true, sortable: true, data_type: 'money' },
      { id: 'total', name: 'Total', source: 'definition', visible: true, sortable: true, data_type: 'money' },
    ]);
    const mine = await columnsOf(colleague);
    expect(mine.find((column) => column.id === 'customer_segment:seg-plan')).toEqual({ id: 'customer_segment:seg-plan', name: 'Plan', source: 'customer_segment', visible: false, sortable: true, data_type: 'string' });
  });

  it('stores the order and visibility given, drops unknown ids, and appends what was not placed hidden', async () => {
    const response = await api('PUT', '/users/me', colleague, {
      customer_columns: [
        { id: 'customer_segment:seg-plan', visible: true, name: 'ignored' },
        { id: 'mrr', visible: false },
        { id: 'definition:nope', visible: true },
        { id: 'name', visible: true },
      ],
    });
    expect(response.statusCode, response.body).toBe(200);
    const columns = (response.json() as { user: { customer_columns: Column[] } }).user.customer_columns;
    expect(columns.slice(0, 3).map((column) => [column.id, column.name, column.visible])).toEqual([
      ['customer_segment:seg-plan', 'Plan', true],
      ['mrr', 'MRR', false],
      ['name', 'Name', true],
    ]);
    expect(columns.slice(3).every((column) => !column.visible)).toBe(true);
    expect(columns.map((column) => column.id)).not.toContain('definition:nope');
    const stored = await harness.db.kysely.selectFrom('users').select('customer_columns').where('id', '=', colleague.user.id).executeTakeFirstOrThrow();
    expect(stored.customer_columns).toEqual([
      { id: 'customer_segment:seg-plan', visible: true },
      { id: 'mrr', visible: false },
      { id: 'name', visible: true },
    ]);
    expect(await columnsOf(colleague)).toEqual(columns);
  });

  it('leaves out a column whose segment is gone', async () => {
    await harness.db.kysely.insertInto('object_attributes').values({ account_id: account, id: 'att-tmp', name: 'Temporary', object: 'customer' }).execute();
    await harness.db.kysely.insertInto('customer_segments').values({ account_id: account, id: 'seg-tmp', object_attribute_id: 'att-tmp', name: 'Temporary' }).execute();
    await api('PUT', '/users/me', colleague, { customer_columns: [{ id: 'customer_segment:seg-tmp', visible: true }] });
    expect((await columnsOf(colleague))[0]?.id).toBe('customer_segment:seg-tmp');
    await harness.db.kysely.deleteFrom('customer_segments').where('id', '=', 'seg-tmp').execute();
    expect((await columnsOf(colleague)).map((column) => column.id)).not.toContain('customer_segment:seg-tmp');
  });
});
