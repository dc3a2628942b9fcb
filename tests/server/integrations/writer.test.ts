import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KnownCustomers, KNOWN_CUSTOMERS_LIMIT, KnownProducts, KNOWN_PRODUCTS_LIMIT, writeBatch } from '../../../server/integrations/writer';
import type { SyncBatch } from '../../../server/integrations/types';
import { createAuthTestApp, signUp, type AuthTestApp } from '../auth/support';
import { testEngine } from '../helpers/database';
import { syncPayment } from './support';

/**
 * The batch writer: customers by public id, products made to exist, payments by external id
 * (new, changed with a version, unchanged untouched, deleted with a version), invoice lines as
 * pending then handed to the import rules, deals by public id; committing a batch twice changes
 * nothing.
 */

let harness: AuthTestApp;
let accountId: string;

const payment = syncPayment;

const write = (batch: SyncBatch) => harness.db.kysely.transaction().execute((trx) => writeBatch(trx, accountId, 'chargebee', batch));

async function payments() {
  const rows = await harness.db.kysely
    .selectFrom('payments as p')
    .leftJoin('payment_items as i', (join) => join.onRef('i.account_id', '=', 'p.account_id').onRef('i.payment_id', '=', 'p.id'))
    .leftJoin('payment_discounts as d', (join) => join.onRef('d.account_id', '=', 'p.account_id').onRef('d.payment_id', '=', 'p.id'))
    .select(['p.id', 'p.external_id', 'p.version', 'p.total_value', 'p.monthly_amount', 'p.ended_at', 'p.deleted_at', 'i.product_key', 'i.type', 'i.quantity', 'd.kind', 'd.monthly_amount as discount', 'd.months'])
    .where('p.account_id', '=', accountId)
    .orderBy('p.external_id')
    .execute();
  return rows.map((row) => ({ ...row, total_value: row.total_value === null ? null : Number(row.total_value), discount: row.discount === null ? null : Number(row.discount), ended_at: row.ended_at === null ? null : String(row.ended_at) }));
}

describe(`integration batch writer on ${testEngine}`, () => {
  beforeAll(async () => {
    harness = await createAuthTestApp();
    accountId = (await signUp(harness.app)).user.account_id;
  });
  afterAll(() => harness?.close());

  it('inserts customers, products and payments, and a second commit of the same batch changes nothing', async () => {
    const batch: SyncBatch = {
      customers: [{ externalId: 'cb_1', name: 'Acme' }],
      payments: [
        payment('p1'),
        payment('p2', { endedAt: null, totalValue: null, monthlyAmount: 999.5, itemType: 'metered', productKey: 'usage', discount: { kind: 'forever', monthlyAmount: 100, months: null, name: 'FOREVER10' } }),
      ],
    };
    expect(await write(batch)).toMatchObject({ customers: 1, paymentsInserted: 2, paymentsChanged: 0 });
    const first = await payments();
    expect(first).toMatchObject([
      { external_id: 'p1', version: 1, total_value: 1200, product_key: 'pro', type: 'recurring', kind: null },
      { external_id: 'p2', version: 1, total_value: null, ended_at: null, monthly_amount: 999.5, product_key: 'usage', type: 'metered', kind: 'forever', discount: 100, months: null },
    ]);
    expect(await write(batch)).toMatchObject({ paymentsInserted: 0, paymentsChanged: 0 });
    expect(await payments()).toEqual(first);
    const customers = await harness.db.kysely.selectFrom('customers').select(['public_id', 'name', 'source']).where('account_id', '=', accountId).execute();
    expect(customers).toEqual([{ public_id: 'cb_1', name: 'Acme', source: 'chargebee' }]);
    const products = await harness.db.kysely.selectFrom('products').select('key').where('account_id', '=', accountId).orderBy('key').execute();
    expect(products.map((p) => p.key)).toEqual(['pro', 'usage']);
  });

  it('versions a changed payment and a deleted one; renames the customer it created', async () => {
    const result = await write({
      customers: [{ externalId: 'cb_1', name: 'Acme Inc' }],
      payments: [payment('p1', { totalValue: 2400, monthlyAmount: 2400, discount: { kind: 'finite', monthlyAmount: 240, months: 1, name: 'ONCE' } })],
      deletedPayments: ['p2', 'nosuch'],
    });
    expect(result).toMatchObject({ paymentsChanged: 1, paymentsDeleted: 1 });
    const rows = await payments();
    expect(rows[0]).toMatchObject({ external_id: 'p1', version: 2, total_value: 2400, kind: 'finite', discount: 240, months: 1 });
    expect(rows[1]).toMatchObject({ external_id: 'p2', version: 2 });
    expect(rows[1]?.deleted_at).not.toBeNull();
    const versions = await harness.db.kysely.selectFrom('payment_versions').select(['payment_id', 'version', 'total_value', 'deleted', 'discounts']).where('account_id', '=', accountId).orderBy('payment_id').execute();
    const byPayment = (a: unknown[], b: unknown[]) => String(a[0]).localeCompare(String(b[0]));
    expect(versions.map((v) => [v.payment_id, v.version, v.total_value === null ? null : Number(v.total_value), v.deleted]).sort(byPayment)).toEqual(
      [
        [rows[0]?.id, 1, 1200, false],
        [rows[1]?.id, 1, null, false],
      ].sort(byPayment),
    );
    // Deleting again does nothing more.
    expect(await write({ deletedPayments: ['p2'] })).toMatchObject({ paymentsDeleted: 0 });
    const customer = await harness.db.kysely.selectFrom('customers').select('name').where('account_id', '=', accountId).where('public_id', '=', 'cb_1').executeTakeFirstOrThrow();
    expect(customer.name).toBe('Acme Inc');
  });

  it('creates a customer named by its id when a payment names one not seen yet', async () => {
    await write({ payments: [payment('p3', { customerExternalId: 'cb_unseen' })] });
    const customer = await harness.db.kysely.selectFrom('customers').select(['name', 'source']).where('account_id', '=', accountId).where('public_id', '=', 'cb_unseen').executeTakeFirstOrThrow();
    expect(customer).toEqual({ name: 'cb_unseen', source: 'chargebee' });
  });

  it('stores invoice lines as pending and hands them to the import rules; a re-sent line is not duplicated', async () => {
    const line = { externalId: 'line-1', name: 'Hosting', value: 12300, currency: 'pln', quantity: 1, invoiceNumber: 'FV 1', buyerName: 'Buyer', buyerId: null, issueDate: '2025-03-01' };
    expect(await write({ invoiceItems: [line] })).toMatchObject({ invoiceItems: 1 });
    expect(await write({ invoiceItems: [line] })).toMatchObject({ invoiceItems: 0 });
    const items = await harness.db.kysely.selectFrom('invoice_items').select(['external_id', 'currency', 'value', 'processing_status']).where('account_id', '=', accountId).execute();
    // No rule matches it yet: a rejected line.
    expect(items.map((item) => ({ ...item, value: Number(item.value) }))).toEqual([{ external_id: 'line-1', currency: 'PLN', value: 12300, processing_status: 'distillation_failed' }]);
  });

  it('upserts deals by their public id', async () => {
    const deal = { externalId: 'd1', name: 'Big deal', value: 50000, currency: 'usd', stage: 'open', stageChangedAt: '2025-01-02T00:00:00Z', ownerName: 'Dana', externalUrl: null, customerExternalId: 'cb_1' };
    await write({ deals: [deal] });
    await write({ deals: [{ ...deal, stage: 'won' }] });
    const deals = await harness.db.kysely.selectFrom('deals').select(['public_id', 'stage', 'currency', 'customer_id']).where('account_id', '=', accountId).execute();
    expect(deals).toHaveLength(1);
    expect(deals[0]).toMatchObject({ public_id: 'd1', stage: 'won', currency: 'USD' });
    expect(deals[0]?.customer_id).not.toBeNull();
  });

  it('matches a deal to an existing customer by public id, never making one', async () => {
    const base = { name: 'Matched', value: 100, currency: 'EUR', stage: 'open', stageChangedAt: null, ownerName: null, externalUrl: null, customerExternalId: null };
    await write({ deals: [{ ...base, externalId: 'd2', customerPublicId: 'cb_1' }, { ...base, externalId: 'd3', customerPublicId: 'nobody' }] });
    const rows = await harness.db.kysely
      .selectFrom('deals as d')
      .leftJoin('customers as c', (join) => join.onRef('c.account_id', '=', 'd.account_id').onRef('c.id', '=', 'd.customer_id'))
      .select(['d.public_id', 'c.public_id as customer'])
      .where('d.account_id', '=', accountId)
      .where('d.public_id', 'in', ['d2', 'd3'])
      .orderBy('d.public_id')
      .execute();
    expect(rows).toEqual([
      { public_id: 'd2', customer: 'cb_1' },
      { public_id: 'd3', customer: null },
    ]);
    expect(await harness.db.kysely.selectFrom('customers').select('id').where('account_id', '=', accountId).where('public_id', '=', 'nobody').execute()).toEqual([]);
  });

  it('writes customer attribute values for this month, making the attributes; an unknown public id is skipped', async () => {
    const valuesOf = () =>
      harness.db.kysely
        .selectFrom('customer_segment_values as v')
        .innerJoin('customer_segments as s', (join) => join.onRef('s.account_id', '=', 'v.account_id').onRef('s.id', '=', 'v.segment_id'))
        .innerJoin('customers as c', (join) => join.onRef('c.account_id', '=', 'v.account_id').onRef('c.id', '=', 'v.customer_id'))
        .select(['c.public_id', 's.name', 'v.value', 'v.year', 'v.month'])
        .where('v.account_id', '=', accountId)
        .orderBy('c.public_id')
        .orderBy('s.name')
        .execute();
    const now = new Date();
    const result = await write({
      customers: [{ externalId: 'cb_attr', name: 'Attributed', attributes: { 'Test plan': 'Gold' } }],
      customerAttributes: [
        { publicId: 'cb_1', values: { 'Test plan': 'Silver', 'Test region': 'EU' } },
        { publicId: 'nobody', values: { 'Test plan': 'Bronze' } },
      ],
    });
    expect(result.attributeValues).toBe(3);
    const month = { year: now.getUTCFullYear(), month: now.getUTCMonth() + 1 };
    expect(await valuesOf()).toEqual([
      { public_id: 'cb_1', name: 'Test plan', value: 'Silver', ...month },
      { public_id: 'cb_1', name: 'Test region', value: 'EU', ...month },
      { public_id: 'cb_attr', name: 'Test plan', value: 'Gold', ...month },
    ]);
    // Written again with another value: replaced, the attribute reused (matched without regard to case).
    await write({ customerAttributes: [{ publicId: 'cb_1', values: { 'test PLAN': 'Platinum' } }] });
    expect((await valuesOf()).find((row) => row.public_id === 'cb_1' && row.name === 'Test plan')?.value).toBe('Platinum');
    const attributes = await harness.db.kysely.selectFrom('object_attributes').select(['name', 'object']).where('account_id', '=', accountId).orderBy('name').execute();
    expect(attributes).toEqual([
      { name: 'Test plan', object: 'customer' },
      { name: 'Test region', object: 'customer' },
    ]);
    expect(await harness.db.kysely.selectFrom('customers').select('id').where('account_id', '=', accountId).where('public_id', '=', 'nobody').execute()).toEqual([]);
  });

  it("hands back the customers a batch wrote or read, and a run's later batches use them", async () => {
    const customerId = async (publicId: string) =>
      (await harness.db.kysely.selectFrom('customers').select('id').where('account_id', '=', accountId).where('public_id', '=', publicId).executeTakeFirstOrThrow()).id;
    const known = new KnownCustomers();
    const first = await harness.db.kysely.transaction().execute((trx) =>
      writeBatch(trx, accountId, 'chargebee', { customers: [{ externalId: 'run_new', name: 'New Co' }], payments: [payment('run_p1', { customerExternalId: 'cb_1' })] }, { known }),
    );
    // The customer written, and the stored one its payment named (read).
    expect(Object.fromEntries(first.learned)).toEqual({ run_new: await customerId('run_new'), cb_1: await customerId('cb_1') });
    known.add(first.learned);
    expect(known.get('run_new')).toBe(await customerId('run_new'));
    const before = await harness.db.kysely.selectFrom('customers').select((eb) => eb.fn.countAll().as('n')).where('account_id', '=', accountId).executeTakeFirstOrThrow();
    const second = await harness.db.kysely.transaction().execute((trx) =>
      writeBatch(trx, accountId, 'chargebee', { payments: [payment('run_p2', { customerExternalId: 'run_new' }), payment('run_p3', { customerExternalId: 'cb_1' })] }, { known }),
    );
    // Nothing new learned: both customers were known already, and no customer was made twice.
    expect(second).toMatchObject({ paymentsInserted: 2 });
    expect(second.learned.size).toBe(0);
    const after = await harness.db.kysely.selectFrom('customers').select((eb) => eb.fn.countAll().as('n')).where('account_id', '=', accountId).executeTakeFirstOrThrow();
    expect(Number(after.n)).toBe(Number(before.n));
    const owners = await harness.db.kysely.selectFrom('payments').select(['external_id', 'customer_id']).where('account_id', '=', accountId).where('external_id', 'in', ['run_p2', 'run_p3']).orderBy('external_id').execute();
    expect(owners).toEqual([
      { external_id: 'run_p2', customer_id: await customerId('run_new') },
      { external_id: 'run_p3', customer_id: await customerId('cb_1') },
    ]);
  });

  it("hands back the products a batch made sure exist, and a run's later batches do not write them again", async () => {
    const products = async () =>
      (await harness.db.kysely.selectFrom('products').select('key').where('account_id', '=', accountId).where('key', 'like', 'run_prod_%').orderBy('key').execute()).map((row) => row.key);
    const knownProducts = new KnownProducts();
    const first = await harness.db.kysely.transaction().execute((trx) => writeBatch(trx, accountId, 'chargebee', { payments: [payment('prod_p1', { productKey: 'run_prod_a' })] }, { knownProducts }));
    expect([...first.learnedProducts]).toEqual(['run_prod_a']);
    expect(await products()).toEqual(['run_prod_a']);
    knownProducts.add(first.learnedProducts);
    // The run knows run_prod_a now: a later batch writes only the product it has not seen.
    const second = await harness.db.kysely.transaction().execute((trx) =>
      writeBatch(trx, accountId, 'chargebee', { payments: [payment('prod_p2', { productKey: 'run_prod_a' }), payment('prod_p3', { productKey: 'run_prod_b' })] }, { knownProducts }),
    );
    expect([...second.learnedProducts]).toEqual(['run_prod_b']);
    expect(await products()).toEqual(['run_prod_a', 'run_prod_b']);
    expect(second).toMatchObject({ paymentsInserted: 2 });
    // What the run claims to know is trusted: a key it was told of is not written (products are never deleted, so one it wrote stays).
    const told = new KnownProducts();
    told.add(new Set(['run_prod_c']));
    await harness.db.kysely.transaction().execute((trx) => writeBatch(trx, accountId, 'chargebee', { payments: [payment('prod_p4', { productKey: 'run_prod_c' })] }, { knownProducts: told }));
    expect(await products()).toEqual(['run_prod_a', 'run_prod_b']);
    await harness.db.kysely.transaction().execute((trx) => writeBatch(trx, accountId, 'chargebee', { payments: [payment('prod_p5', { productKey: 'run_prod_c' })] }));
    expect(await products()).toEqual(['run_prod_a', 'run_prod_b', 'run_prod_c']);
  });

  it('keeps at most KNOWN_PRODUCTS_LIMIT products', () => {
    const known = new KnownProducts();
    known.add(new Set(Array.from({ length: KNOWN_PRODUCTS_LIMIT + 5 }, (_, k) => `p${k}`)));
    expect(known.has(`p${KNOWN_PRODUCTS_LIMIT - 1}`)).toBe(true);
    expect(known.has(`p${KNOWN_PRODUCTS_LIMIT}`)).toBe(false);
  });

  it('keeps at most KNOWN_CUSTOMERS_LIMIT customers', () => {
    const known = new KnownCustomers();
    known.add(new Map(Array.from({ length: KNOWN_CUSTOMERS_LIMIT + 5 }, (_, k) => [`c${k}`, `id${k}`])));
    expect(known.get(`c${KNOWN_CUSTOMERS_LIMIT - 1}`)).toBe(`id${KNOWN_CUSTOMERS_LIMIT - 1}`);
    expect(known.get(`c${KNOWN_CUSTOMERS_LIMIT}`)).toBeUndefined();
  });

  it('never lets a stand-in replace or revive what an invoice decided; a stand-in replaces a stand-in', async () => {
    const stored = async (externalId: string) => {
      const row = await harness.db.kysely.selectFrom('payments').select(['version', 'total_value', 'invoice_number', 'deleted_at']).where('account_id', '=', accountId).where('external_id', '=', externalId).executeTakeFirstOrThrow();
      return { ...row, total_value: Number(row.total_value), version: Number(row.version) };
    };
    const term = (externalId: string, totalValue: number) => payment(externalId, { invoiceNumber: null, totalValue, monthlyAmount: totalValue, standIn: true });
    // In one batch: the invoice's payment stays whichever comes last; a later stand-in replaces an earlier one.
    expect(await write({ payments: [payment('si_a', { invoiceNumber: 'A-1' }), term('si_a', 999), term('si_b', 100), term('si_b', 200)] })).toMatchObject({ paymentsInserted: 2 });
    expect(await stored('si_a')).toMatchObject({ invoice_number: 'A-1', total_value: 1200 });
    expect((await stored('si_b')).total_value).toBe(200);
    // Stored: an invoice's payment, and one a void invoice deleted, are left alone by stand-ins.
    await write({ deletedPayments: ['si_b'] });
    expect(await write({ payments: [term('si_a', 999), term('si_b', 300)] })).toMatchObject({ paymentsInserted: 0, paymentsChanged: 0 });
    expect(await stored('si_a')).toMatchObject({ invoice_number: 'A-1', total_value: 1200, version: 1 });
    expect((await stored('si_b')).deleted_at).not.toBeNull();
    // A stand-in changes a stand-in (the term changed), and an invoice's payment replaces a stand-in.
    await write({ payments: [term('si_c', 100)] });
    expect(await write({ payments: [term('si_c', 150)] })).toMatchObject({ paymentsChanged: 1 });
    expect(await write({ payments: [payment('si_c', { invoiceNumber: 'C-1' })] })).toMatchObject({ paymentsChanged: 1 });
    expect(await stored('si_c')).toMatchObject({ invoice_number: 'C-1', total_value: 1200, version: 3 });
  });
});
