import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMonths, dayFromIso, isoFromDay } from '../../../server/metrics/days';
import { customerSegmenterId } from '../../../server/metrics/definitions/segmenters';
import type { SectionRequest } from '../../../server/metrics/definitions/types';
import { loadSnapshot } from '../../../server/metrics/loadSnapshot';
import { createMetricsService, METRICS_INVALIDATE_CHANNEL, type MetricsService } from '../../../server/metrics/service';
import { createTestDatabase, testEngine, type TestDatabase } from '../helpers/database';

/** The metrics service: snapshots cached per account, invalidated by writes here and by NOTIFY from elsewhere. */

const MRR: Omit<SectionRequest, 'today'> = { definition_id: 'mrr', range: { start_year: 2024, start_month: 1, end_year: 2024, end_month: 3 } };
const TODAY = '2024-03-31';

async function addAccount(db: TestDatabase, id: string): Promise<void> {
  await db.kysely.insertInto('accounts').values({ id, name: id }).execute();
  await db.kysely.insertInto('products').values({ account_id: id, key: 'plan', name: 'Plan' }).execute();
}

async function addCustomer(db: TestDatabase, account: string, id: string): Promise<void> {
  await db.kysely.insertInto('customers').values({ account_id: account, id, name: id.toUpperCase(), public_id: null }).execute();
}

let paymentSequence = 0;
async function addPayment(db: TestDatabase, account: string, customer: string, start: string, months: number, total: number): Promise<void> {
  paymentSequence += 1;
  const id = `subh${String(paymentSequence).padStart(12, '0')}`;
  await db.kysely
    .insertInto('payments')
    .values({ account_id: account, id, customer_id: customer, started_at: start, ended_at: isoFromDay(addMonths(dayFromIso(start), months)), duration_in_months: months, total_value: total, currency: 'USD', invoice_number: null, external_id: null, import_id: null })
    .execute();
  await db.kysely.insertInto('payment_items').values({ account_id: account, payment_id: id, product_key: 'plan', type: 'recurring' }).execute();
}

const mrrAtMarch = async (service: MetricsService, account: string) => (await service.sections(account, [{ ...MRR, today: TODAY }]))[0]?.segments[0]?.series[0]?.data_points.at(-1)?.value;

async function eventually(check: () => boolean, what: string): Promise<void> {
  for (let k = 0; k < 100; k++) {
    if (check()) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`timed out waiting until ${what}`);
}

describe(`the metrics service on ${testEngine}`, () => {
  let db: TestDatabase;
  let loads: string[];
  let service: MetricsService;

  beforeAll(async () => {
    db = await createTestDatabase();
    for (const account of ['acc-a', 'acc-b', 'acc-c']) await addAccount(db, account);
    await addCustomer(db, 'acc-a', 'alpha');
    await addPayment(db, 'acc-a', 'alpha', '2024-01-01', 3, 30_000);
    await addCustomer(db, 'acc-b', 'bravo');
    await addPayment(db, 'acc-b', 'bravo', '2024-01-01', 3, 60_000);
    loads = [];
    service = createMetricsService(db, {
      capacity: 2,
      now: () => new Date(`${TODAY}T12:00:00Z`),
      load: (database, accountId, extraCurrencies) => {
        loads.push(accountId);
        return loadSnapshot(database, accountId, { extraCurrencies });
      },
    });
    await service.start();
  });
  afterAll(async () => {
    await service?.close();
    await db?.close();
  });

  it('loads an account once and answers from memory afterwards', async () => {
    loads.length = 0;
    expect(await mrrAtMarch(service, 'acc-a')).toBe(10_000);
    expect(await mrrAtMarch(service, 'acc-a')).toBe(10_000);
    expect(loads).toEqual(['acc-a']);
  });

  it('sees a write at once, told or not: a cached snapshot serves only the account’s current data version', async () => {
    expect(await mrrAtMarch(service, 'acc-a')).toBe(10_000);
    expect(service.cachedAccounts()).toContain('acc-a');
    // Written beside the service (no invalidate, no NOTIFY): the data version moved, so the snapshot is read again.
    await addPayment(db, 'acc-a', 'alpha', '2024-03-05', 1, 5_000);
    expect(await mrrAtMarch(service, 'acc-a')).toBe(15_000);
    await service.invalidate('acc-a');
    expect(service.cachedAccounts()).not.toContain('acc-a');
    expect(await mrrAtMarch(service, 'acc-a')).toBe(15_000);
  });

  it('drops a snapshot when another connection NOTIFYs metrics_invalidate', async () => {
    await mrrAtMarch(service, 'acc-a');
    expect(service.cachedAccounts()).toContain('acc-a');
    if (db.url) {
      const other = new pg.Client({ connectionString: db.url });
      await other.connect();
      await other.query('select pg_notify($1, $2)', [METRICS_INVALIDATE_CHANNEL, 'acc-a']);
      await other.end();
    } else {
      await db.executeSql(`select pg_notify('${METRICS_INVALIDATE_CHANNEL}', 'acc-a')`);
    }
    await eventually(() => !service.cachedAccounts().includes('acc-a'), 'the NOTIFY dropped acc-a');
  });

  it('keeps the most recently used accounts only', async () => {
    await mrrAtMarch(service, 'acc-a');
    await mrrAtMarch(service, 'acc-b');
    await mrrAtMarch(service, 'acc-a');
    await mrrAtMarch(service, 'acc-c');
    expect(service.cachedAccounts()).toEqual(['acc-a', 'acc-c']);
  });

  it('reloads an account whose snapshot lacks the rates of a currency asked for', async () => {
    await db.kysely
      .insertInto('exchange_rates')
      .values([
        { day: '2024-01-02', currency: 'USD', rate_per_eur: '1.1' },
        { day: '2024-01-02', currency: 'GBP', rate_per_eur: '0.88' },
      ])
      .onConflict((c) => c.doNothing())
      .execute();
    await service.invalidate('acc-b');
    expect((await service.customerMetrics('acc-b', 'bravo'))?.currency).toBe('USD');
    loads.length = 0;
    const inPounds = await service.customerMetrics('acc-b', 'bravo', { currency: 'GBP' });
    expect(loads).toEqual(['acc-b']);
    expect(inPounds).toMatchObject({ currency: 'GBP', mrr: Math.round((20_000 * 0.88) / 1.1) });
  });

  it("scopes every computation by account: another account's customer is unknown", async () => {
    expect(await service.customerMetrics('acc-a', 'bravo')).toBeNull();
    expect((await service.customerMetrics('acc-b', 'bravo'))?.mrr).toBe(20_000);
  });

  it("lists the catalogue with the account's attributes and segmentations, and computes with a segmentation's mappings", async () => {
    await db.kysely.insertInto('object_attributes').values({ account_id: 'acc-a', id: 'att-country', name: 'Country', object: 'customer' }).execute();
    await db.kysely.insertInto('customer_segments').values({ account_id: 'acc-a', id: 'seg-country', object_attribute_id: 'att-country', name: 'Country' }).execute();
    await db.kysely.insertInto('customer_segment_values').values({ account_id: 'acc-a', customer_id: 'alpha', segment_id: 'seg-country', year: 2024, month: 1, value: 'DE' }).execute();
    await db.kysely
      .insertInto('segmenter_definitions')
      .values({ account_id: 'acc-a', id: 'sgd-regions', name: 'Regions', type_name: 'customer_segment', object_attribute_id: 'att-country', mappings: JSON.stringify([{ value: 'DE', name: 'Europe' }]) })
      .execute();
    await service.invalidate('acc-a');
    const mrr = (await service.sectionDefinitions('acc-a')).find((d) => d.id === 'mrr');
    expect(mrr?.segmenters.map((s) => s.id)).toEqual(expect.arrayContaining([customerSegmenterId('seg-country'), 'sgd-regions']));
    const [section] = await service.sections('acc-a', [{ ...MRR, today: TODAY, segmenters: ['sgd-regions'] }]);
    expect(section?.segments[1]?.series.map((s) => [s.segment_value, s.data_points.at(-1)?.value])).toEqual([
      ['Europe', 15_000],
      ['Other', 0],
    ]);
  });
});
