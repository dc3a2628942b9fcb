import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { arrayLiteral } from '../../../server/db/arrayLiteral';
import { commitInOneStatement, prepareBatch } from '../../../server/integrations/statementCommit';
import type { SyncBatch, SyncPayment } from '../../../server/integrations/types';
import { KnownCustomers, KnownProducts, mayBulkWrite, writeBatch } from '../../../server/integrations/writer';
import { createAuthTestApp, signUp, type AuthTestApp } from '../auth/support';
import { testEngine } from '../helpers/database';
import { syncPayment } from './support';

/**
 * A first sync's commit in one statement: array literals that PostgreSQL reads back as the
 * values they were made from; a batch of new rows written with its cursor (customers of the
 * batch, customers named only by a payment, customers the account has, products, items and
 * discounts, the data version raised); nothing written when the run is no longer the
 * integration's; a batch with a stored payment written without its cursor, for the usual
 * transaction to finish; batches one statement cannot write.
 */

let harness: AuthTestApp;

/** Currencies as providers send them (lower case): stored upper case. */
const payment = (externalId: string, customerExternalId: string, changes: Partial<SyncPayment> = {}): SyncPayment => syncPayment(externalId, { customerExternalId, currency: 'eur', ...changes });

const STARTED_AT = new Date('2026-11-01T10:00:00.000Z');

async function syncingAccount(): Promise<string> {
  const accountId = (await signUp(harness.app)).user.account_id;
  await harness.db.kysely
    .insertInto('integrations')
    .values({ account_id: accountId, name: 'stripe', configured: true, config: '{}', sync_status: 'syncing', sync_mode: 'initial', sync_started_at: STARTED_AT })
    .execute();
  return accountId;
}

const dataVersion = async (accountId: string) => Number((await harness.db.kysely.selectFrom('accounts').select('data_version').where('id', '=', accountId).executeTakeFirstOrThrow()).data_version);
const integration = (accountId: string) =>
  harness.db.kysely.selectFrom('integrations').select(['sync_cursor', 'initial_progress']).where('account_id', '=', accountId).where('name', '=', 'stripe').executeTakeFirstOrThrow();
const customers = (accountId: string) =>
  harness.db.kysely.selectFrom('customers').select(['id', 'public_id', 'name', 'source']).where('account_id', '=', accountId).orderBy('public_id').execute();

async function commit(accountId: string, batch: SyncBatch, options: { startedAt?: Date; known?: KnownCustomers; cursor?: Record<string, unknown>; bulk?: boolean } = {}) {
  const prepared = prepareBatch(batch);
  if (!prepared) throw new Error('the batch cannot be written in one statement');
  return commitInOneStatement(harness.db.kysely, prepared, {
    accountId,
    source: 'stripe',
    startedAt: options.startedAt ?? STARTED_AT,
    cursor: (options.cursor ?? { lanes: ['after cus_2'] }) as never,
    progress: 40,
    bulk: options.bulk ?? (await mayBulkWrite(harness.db.kysely)),
    known: options.known ?? new KnownCustomers(),
    knownProducts: new KnownProducts(),
  });
}

describe(`one-statement commit of a first sync on ${testEngine}`, () => {
  beforeAll(async () => {
    harness = await createAuthTestApp();
  });
  afterAll(() => harness?.close());

  it('makes array literals PostgreSQL reads back as the same values', async () => {
    const texts = ['', ' ', ' padded ', 'NULL', 'null', 'Null', 'NULLS', 'a,b', '{x}', '"quoted"', 'back\\slash', 'ünïcödé', 'tab\there', 'new\nline', "it's", '[1:2]', 'plain_id-1.2@x:y+z/w', null, 'si_1@2025-01-01'];
    const { rows } = await sql<{ value: string | null }>`select unnest(${arrayLiteral(texts)}::text[]) as value`.execute(harness.db.kysely);
    expect(rows.map((row) => row.value)).toEqual(texts);
    const numbers = [0, -5, 0.1, 1234.5678, 1e21, 2 ** 53, null];
    const { rows: read } = await sql<{ value: number | null }>`select unnest(${arrayLiteral(numbers)}::double precision[]) as value`.execute(harness.db.kysely);
    expect(read.map((row) => row.value)).toEqual(numbers);
    const { rows: days } = await sql<{ value: string }>`select unnest(${arrayLiteral(['2025-01-31', null])}::date[])::text as value`.execute(harness.db.kysely);
    expect(days.map((row) => row.value)).toEqual(['2025-01-31', null]);
  });

  it('writes a batch of new rows with its cursor in one statement and raises the data version', async () => {
    const accountId = await syncingAccount();
    // A customer the account has already (from an earlier batch the run no longer remembers).
    await harness.db.kysely.insertInto('customers').values({ account_id: accountId, id: 'cus_stored0000001', public_id: 'cus_old', name: 'Old Co', source: 'stripe' }).execute();
    const before = await dataVersion(accountId);
    const outcome = await commit(accountId, {
      customers: [{ externalId: 'cus_1', name: '  Acme  ' }, { externalId: 'cus_2', name: '' }],
      payments: [
        payment('in_1', 'cus_1', { discount: { kind: 'forever', monthlyAmount: 120, months: null, name: 'TEN "%"' } }),
        payment('in_2', 'cus_old', { endedAt: null, totalValue: null, monthlyAmount: 99.5, productKey: 'usage', itemType: 'metered', invoiceNumber: null }),
        payment('in_3', 'cus_gone', { quantity: 3, discount: { kind: 'finite', monthlyAmount: 50, months: 3, name: null } }),
      ],
    });
    expect(outcome.ours).toBe(true);
    expect(outcome.committed).toBe(true);
    expect([...outcome.learnedProducts].sort()).toEqual(['pro', 'usage']);
    const stored = await customers(accountId);
    expect(stored.map(({ public_id, name, source }) => ({ public_id, name, source }))).toEqual([
      { public_id: 'cus_1', name: 'Acme', source: 'stripe' },
      { public_id: 'cus_2', name: 'cus_2', source: 'stripe' },
      { public_id: 'cus_gone', name: 'cus_gone', source: 'stripe' },
      { public_id: 'cus_old', name: 'Old Co', source: 'stripe' },
    ]);
    const idOf = (publicId: string) => stored.find((customer) => customer.public_id === publicId)?.id;
    expect(new Map(outcome.learned)).toEqual(new Map([['cus_1', idOf('cus_1')], ['cus_2', idOf('cus_2')], ['cus_gone', idOf('cus_gone')]]));
    const rows = await harness.db.kysely
      .selectFrom('payments as p')
      .innerJoin('payment_items as i', (join) => join.onRef('i.account_id', '=', 'p.account_id').onRef('i.payment_id', '=', 'p.id'))
      .leftJoin('payment_discounts as d', (join) => join.onRef('d.account_id', '=', 'p.account_id').onRef('d.payment_id', '=', 'p.id'))
      .select(['p.external_id', 'p.customer_id', 'p.currency', 'p.total_value', 'p.monthly_amount', 'p.duration_in_months', 'p.invoice_number', 'p.source', 'i.product_key', 'i.type', 'i.quantity', 'd.kind', 'd.monthly_amount as discount', 'd.months', 'd.name'])
      .where('p.account_id', '=', accountId)
      .orderBy('p.external_id')
      .execute();
    expect(rows.map((row) => ({ ...row, total_value: row.total_value === null ? null : Number(row.total_value), discount: row.discount === null ? null : Number(row.discount) }))).toEqual([
      { external_id: 'in_1', customer_id: idOf('cus_1'), currency: 'EUR', total_value: 1200, monthly_amount: 1200, duration_in_months: 1, invoice_number: 'INV-1', source: 'stripe', product_key: 'pro', type: 'recurring', quantity: 1, kind: 'forever', discount: 120, months: null, name: 'TEN "%"' },
      { external_id: 'in_2', customer_id: 'cus_stored0000001', currency: 'EUR', total_value: null, monthly_amount: 99.5, duration_in_months: null, invoice_number: null, source: 'stripe', product_key: 'usage', type: 'metered', quantity: 1, kind: null, discount: null, months: null, name: null },
      { external_id: 'in_3', customer_id: idOf('cus_gone'), currency: 'EUR', total_value: 1200, monthly_amount: 1200, duration_in_months: 1, invoice_number: 'INV-1', source: 'stripe', product_key: 'pro', type: 'recurring', quantity: 3, kind: 'finite', discount: 50, months: 3, name: null },
    ]);
    const products = await harness.db.kysely.selectFrom('products').select('key').where('account_id', '=', accountId).orderBy('key').execute();
    expect(products.map((product) => product.key)).toEqual(['pro', 'usage']);
    expect(await integration(accountId)).toMatchObject({ sync_cursor: { lanes: ['after cus_2'] }, initial_progress: 40 });
    expect(await dataVersion(accountId)).toBeGreaterThan(before);
    // Row triggers are back on for the next statement of the connection.
    const { rows: role } = await sql<{ role: string }>`select current_setting('session_replication_role') as role`.execute(harness.db.kysely);
    expect(role[0]?.role).toBe('origin');
  });

  it('uses the ids of customers the run knows, and renames only the customers the integration made', async () => {
    const accountId = await syncingAccount();
    await harness.db.kysely.insertInto('customers').values({ account_id: accountId, id: 'cus_csv000000001', public_id: 'cus_csv', name: 'From a CSV', source: 'csv' }).execute();
    const first = await commit(accountId, { customers: [{ externalId: 'cus_1', name: 'Acme' }], payments: [payment('in_1', 'cus_1')] });
    const known = new KnownCustomers();
    known.add(first.learned);
    const second = await commit(accountId, { customers: [{ externalId: 'cus_1', name: 'Acme Inc' }, { externalId: 'cus_csv', name: 'Renamed?' }], payments: [payment('in_2', 'cus_1'), payment('in_3', 'cus_csv')] }, { known });
    expect(second.committed).toBe(true);
    expect((await customers(accountId)).map(({ public_id, name }) => ({ public_id, name }))).toEqual([
      { public_id: 'cus_1', name: 'Acme Inc' },
      { public_id: 'cus_csv', name: 'From a CSV' },
    ]);
    const owners = await harness.db.kysely.selectFrom('payments').select(['external_id', 'customer_id']).where('account_id', '=', accountId).orderBy('external_id').execute();
    expect(owners).toEqual([
      { external_id: 'in_1', customer_id: first.learned.get('cus_1') },
      { external_id: 'in_2', customer_id: first.learned.get('cus_1') },
      { external_id: 'in_3', customer_id: 'cus_csv000000001' },
    ]);
  });

  it('writes the same with row triggers on (a role that may not turn them off): foreign keys checked, the data version raised by them', async () => {
    const accountId = await syncingAccount();
    const before = await dataVersion(accountId);
    const outcome = await commit(accountId, { customers: [{ externalId: 'cus_1', name: 'Acme' }], payments: [payment('in_1', 'cus_1'), payment('in_2', 'cus_new', { discount: { kind: 'forever', monthlyAmount: 10, months: null, name: 'X' } })] }, { bulk: false });
    expect(outcome).toMatchObject({ ours: true, committed: true });
    expect((await customers(accountId)).map((customer) => customer.public_id)).toEqual(['cus_1', 'cus_new']);
    expect(await harness.db.kysely.selectFrom('payment_discounts').select('payment_id').where('account_id', '=', accountId).execute()).toHaveLength(1);
    expect(await integration(accountId)).toMatchObject({ sync_cursor: { lanes: ['after cus_2'] }, initial_progress: 40 });
    expect(await dataVersion(accountId)).toBeGreaterThan(before);
  });

  it('writes nothing when the run is no longer the integration’s current one', async () => {
    const accountId = await syncingAccount();
    const before = await dataVersion(accountId);
    const outcome = await commit(accountId, { customers: [{ externalId: 'cus_1', name: 'Acme' }], payments: [payment('in_1', 'cus_1')] }, { startedAt: new Date(STARTED_AT.getTime() + 1) });
    expect(outcome).toMatchObject({ ours: false, committed: false });
    expect(outcome.learned.size).toBe(0);
    expect(await customers(accountId)).toEqual([]);
    expect(await harness.db.kysely.selectFrom('payments').select('id').where('account_id', '=', accountId).execute()).toEqual([]);
    expect(await integration(accountId)).toMatchObject({ sync_cursor: null });
    expect(await dataVersion(accountId)).toBe(before);
  });

  it('leaves the cursor when a payment is stored already, for the usual transaction to compare it', async () => {
    const accountId = await syncingAccount();
    await harness.db.kysely.transaction().execute((trx) => writeBatch(trx, accountId, 'stripe', { customers: [{ externalId: 'cus_1', name: 'Acme' }], payments: [payment('in_1', 'cus_1')] }));
    const before = await dataVersion(accountId);
    const outcome = await commit(accountId, { payments: [payment('in_1', 'cus_1', { totalValue: 2400, monthlyAmount: 2400 }), payment('in_2', 'cus_1')] });
    expect(outcome).toMatchObject({ ours: true, committed: false });
    expect(await integration(accountId)).toMatchObject({ sync_cursor: null, initial_progress: 0 });
    // The new payment is stored (a later commit of the same batch finds it), the stored one untouched.
    const stored = await harness.db.kysely.selectFrom('payments').select(['external_id', 'total_value', 'version']).where('account_id', '=', accountId).orderBy('external_id').execute();
    expect(stored.map((row) => ({ ...row, total_value: Number(row.total_value) }))).toEqual([
      { external_id: 'in_1', total_value: 1200, version: 1 },
      { external_id: 'in_2', total_value: 1200, version: 1 },
    ]);
    expect(await dataVersion(accountId)).toBeGreaterThan(before);
  });

  it('takes only batches of customers and payments', () => {
    expect(prepareBatch({})).toBeNull();
    expect(prepareBatch({ payments: [payment('in_1', 'cus_1')], deletedPayments: ['in_0'] })).toBeNull();
    expect(prepareBatch({ customers: [{ externalId: 'cus_1', name: 'Acme', attributes: { plan: 'pro' } }] })).toBeNull();
    expect(prepareBatch({ invoiceItems: [{ externalId: 'ii', name: 'x', value: 1, currency: 'EUR', quantity: 1, invoiceNumber: null, buyerName: null, buyerId: null, issueDate: null }] })).toBeNull();
    expect(prepareBatch({ customers: [{ externalId: 'cus_1', name: 'Acme' }], payments: [payment('in_1', 'cus_1'), payment('in_1', 'cus_1', { totalValue: 5 })] })?.payments.count).toBe(1);
  });
});
