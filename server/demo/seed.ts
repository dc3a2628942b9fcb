import { periodEndingIn } from '../../models/reportRange';
import { insertReport } from '../reports/reports';
import { REPORT_TEMPLATES } from '../reports/templates';
import { randomBytes } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import { unnestColumns } from '../db/unnest';
import { hashPassword } from '../auth/password';
import { DEMO_PLAN_ID } from '../plans/catalogue';
import type { DB, PaymentVersionDiscount, PaymentVersionItem } from '../db/schema';
import {
  DEFAULT_DEMO_CUSTOMERS,
  DEFAULT_DEMO_MONTHS,
  DEFAULT_DEMO_SEED,
  DEMO_COST_ATTRIBUTE,
  DEMO_CUSTOMER_SEGMENTS,
  DEMO_PAYMENT_ATTRIBUTE,
  generateBusiness,
  type DemoPayment,
  type DemoSegmentKey,
} from './generate';

export interface SeedDemoOptions {
  email: string;
  password: string;
  /** The current instant; the generated history ends in its (UTC) month, on its day. */
  now: Date;
  seed?: number;
  customers?: number;
  months?: number;
  /** Called after each step inside the transaction (logging; a throw rolls everything back). */
  onStep?: (step: SeedStep, rows: number) => void | Promise<void>;
}

export type SeedStep =
  | 'reports'
  | 'account'
  | 'products'
  | 'attributes'
  | 'customers'
  | 'customer_segment_values'
  | 'payments'
  | 'payment_details'
  | 'costs';

export interface SeedDemoResult {
  accountId: string;
  userId: string;
  counts: { customers: number; payments: number; costs: number };
}

export const DEMO_ACCOUNT_NAME = 'Demo Company';
export const DEMO_OWNER_NAME = 'Demo Owner';

/** Rows per INSERT ... SELECT FROM unnest(...) statement. */
const CHUNK = 5_000;

/** True when the database holds any account (the server seeds the demo only when it holds none). */
export async function hasAnyAccount(db: Kysely<DB>): Promise<boolean> {
  const row = await db.selectFrom('accounts').select('id').limit(1).executeTakeFirst();
  return row !== undefined;
}

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** `length` characters [A-Za-z0-9] from the system CSPRNG (rejection sampling, no bias). */
function randomToken(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248) out += ALPHABET[byte % 62];
      if (out.length === length) break;
    }
  }
  return out;
}

/** The demo account's reports: library templates, over the last 24 months. */
const DEMO_REPORT_TEMPLATES = ['business_overview', 'customer_success_overview'] as const;
const DEMO_REPORT_MONTHS = 24;
/** The key numbers pinned on each demo report (those of its sections, in this order). */
export const DEMO_KEY_NUMBERS = ['mrr', 'customers', 'arpa', 'customer_churn_rate', 'net_revenue_retention'] as const;

/** An application id: prefix + 12 characters. */
function newId(prefix: string): string {
  return prefix + randomToken(12);
}

type Column<T extends keyof DB, Row> = readonly [name: keyof DB[T] & string, pgType: string, value: (row: Row) => unknown];

/** Multi-row insert through `unnest` of one array per column, in chunks; returns rows written. */
async function bulkInsert<T extends keyof DB, Row>(
  db: Kysely<DB>,
  table: T,
  rows: readonly Row[],
  columns: readonly Column<T, Row>[],
): Promise<number> {
  for (let start = 0; start < rows.length; start += CHUNK) {
    const chunk = rows.slice(start, start + CHUNK);
    await sql`insert into ${sql.table(table)} (${sql.join(columns.map(([name]) => sql.ref(name)))})
      select * from ${unnestColumns(columns.map(([, pgType, value]) => [chunk.map(value), pgType] as const))}`.execute(db);
  }
  return rows.length;
}

function utcMidnight(day: string): string {
  return `${day}T00:00:00.000Z`;
}

/**
 * Creates the demo account: its owner, customer attributes and segments, and the whole
 * generated business (customers, attribute histories, payments with their first versions,
 * costs) and two reports (business overview, customer success overview; computed when the
 * server starts), in one transaction, so a failure leaves nothing behind.
 */
export async function seedDemoAccount(db: Kysely<DB>, options: SeedDemoOptions): Promise<SeedDemoResult> {
  const email = options.email.trim();
  if (!/^[^\s@]+@[^\s@]+$/.test(email)) throw new Error(`seedDemoAccount: invalid e-mail '${options.email}'`);
  if (options.password.length === 0) throw new Error('seedDemoAccount: empty password');
  if (Number.isNaN(options.now.getTime())) throw new Error('seedDemoAccount: invalid now');

  const today = options.now.toISOString().slice(0, 10);
  const business = generateBusiness({
    seed: options.seed ?? DEFAULT_DEMO_SEED,
    customers: options.customers ?? DEFAULT_DEMO_CUSTOMERS,
    months: options.months ?? DEFAULT_DEMO_MONTHS,
    endMonth: today.slice(0, 7),
    today,
  });
  const passwordHash = await hashPassword(options.password);
  const accountId = newId('acc');
  const userId = newId('usr');
  const step = async (name: SeedStep, rows: number) => {
    await options.onStep?.(name, rows);
  };

  await db.transaction().execute(async (trx) => {
    await trx
      .insertInto('accounts')
      .values({ id: accountId, name: DEMO_ACCOUNT_NAME, currency: 'USD', is_demo: true, plan_id: DEMO_PLAN_ID })
      .execute();
    await trx
      .insertInto('users')
      .values({
        account_id: accountId,
        id: userId,
        email,
        name: DEMO_OWNER_NAME,
        password_hash: passwordHash,
        permission_level: 'user',
        currency: 'USD',
        api_token: randomToken(40),
      })
      .execute();
    await step('account', 2);

    await trx
      .insertInto('products')
      .values(business.products.map((product) => ({ account_id: accountId, key: product.key, name: product.name })))
      .execute();
    await step('products', business.products.length);

    // Custom attributes: four customer segments, a payment attribute and a cost attribute.
    const segmentIds = new Map<DemoSegmentKey, string>();
    const attributes = DEMO_CUSTOMER_SEGMENTS.map((segment) => ({ ...segment, attributeId: newId('att'), segmentId: newId('seg') }));
    const paymentAttributeId = newId('att');
    const costAttributeId = newId('att');
    await trx
      .insertInto('object_attributes')
      .values([
        ...attributes.map((a) => ({ account_id: accountId, id: a.attributeId, name: a.name, object: 'customer' as const })),
        { account_id: accountId, id: paymentAttributeId, name: DEMO_PAYMENT_ATTRIBUTE, object: 'subscription_history' as const },
        { account_id: accountId, id: costAttributeId, name: DEMO_COST_ATTRIBUTE, object: 'cost' as const },
      ])
      .execute();
    await trx
      .insertInto('customer_segments')
      .values(
        attributes.map((a) => ({
          account_id: accountId,
          id: a.segmentId,
          object_attribute_id: a.attributeId,
          name: a.name,
          value_source: 'parent_and_children' as const,
          time_sensitive: a.time_sensitive,
        })),
      )
      .execute();
    for (const a of attributes) segmentIds.set(a.key, a.segmentId);
    await step('attributes', attributes.length * 2 + 2);

    const customers = await bulkInsert(trx, 'customers', business.customers, [
      ['account_id', 'text', () => accountId],
      ['id', 'text', (c) => c.id],
      ['public_id', 'text', (c) => c.public_id],
      ['name', 'text', (c) => c.name],
      ['parent_id', 'text', (c) => c.parent_id],
      ['include_in_calculations_by_default', 'boolean', (c) => c.include_in_calculations_by_default],
      ['added_at', 'timestamptz', (c) => utcMidnight(c.added_at)],
      ['source', 'text', () => 'demo'],
    ]);
    await step('customers', customers);

    const segmentValueRows = await bulkInsert(trx, 'customer_segment_values', business.segmentValues, [
      ['account_id', 'text', () => accountId],
      ['customer_id', 'text', (v) => v.customer_id],
      ['segment_id', 'text', (v) => segmentIds.get(v.segment)],
      ['year', 'smallint', (v) => v.year],
      ['month', 'smallint', (v) => v.month],
      ['value', 'text', (v) => v.value],
    ]);
    await step('customer_segment_values', segmentValueRows);

    const payments = await bulkInsert(trx, 'payments', business.payments, [
      ['account_id', 'text', () => accountId],
      ['id', 'text', (p) => p.id],
      ['customer_id', 'text', (p) => p.customer_id],
      ['version', 'integer', (p) => (p.correction ? 2 : 1)],
      ['started_at', 'date', (p) => p.started_at],
      ['ended_at', 'date', (p) => p.ended_at],
      ['duration_in_months', 'integer', (p) => p.duration_in_months],
      ['total_value', 'bigint', (p) => p.total_value],
      ['currency', 'text', (p) => p.currency],
      ['invoice_number', 'text', (p) => p.invoice_number],
      ['source', 'text', () => 'demo'],
      ['created_at', 'timestamptz', (p) => utcMidnight(p.started_at)],
      ['updated_at', 'timestamptz', (p) => (p.correction ? `${p.correction.corrected_on}T12:00:00.000Z` : utcMidnight(p.started_at))],
    ]);
    await step('payments', payments);

    // Items, discounts, the payment attribute, and every version (the first one as recorded
    // on the start day; corrected payments also keep their original value as version 1).
    let detailRows = 0;
    const itemRows: { payment: DemoPayment; position: number; item: PaymentVersionItem }[] = [];
    for (const payment of business.payments) {
      payment.items.forEach((item, position) => itemRows.push({ payment, position, item }));
    }
    detailRows += await bulkInsert(trx, 'payment_items', itemRows, [
      ['account_id', 'text', () => accountId],
      ['payment_id', 'text', (r) => r.payment.id],
      ['position', 'smallint', (r) => r.position],
      ['product_key', 'text', (r) => r.item.product_key],
      ['type', 'text', (r) => r.item.type],
      ['quantity', 'integer', (r) => r.item.quantity],
    ]);
    const discounted = business.payments.filter((p) => p.discount !== null);
    detailRows += await bulkInsert(trx, 'payment_discounts', discounted, [
      ['account_id', 'text', () => accountId],
      ['payment_id', 'text', (p) => p.id],
      ['position', 'smallint', () => 0],
      ['kind', 'text', (p) => p.discount?.kind],
      ['monthly_amount', 'bigint', (p) => p.discount?.monthly_amount],
    ]);
    detailRows += await bulkInsert(trx, 'payment_segment_values', business.payments, [
      ['account_id', 'text', () => accountId],
      ['payment_id', 'text', (p) => p.id],
      ['attribute_id', 'text', () => paymentAttributeId],
      ['value', 'text', (p) => p.channel],
    ]);
    interface VersionRow {
      payment: DemoPayment;
      version: number;
      totalValue: number;
      validFrom: string;
      validTo: string | null;
    }
    // Earlier versions only: the current one is the payment row (docs/data-model.md).
    const versions: VersionRow[] = [];
    for (const payment of business.payments) {
      if (!payment.correction) continue;
      const corrected = `${payment.correction.corrected_on}T12:00:00.000Z`;
      versions.push({ payment, version: 1, totalValue: payment.correction.original_total_value, validFrom: utcMidnight(payment.started_at), validTo: corrected });
    }
    const itemsJson = new Map<readonly PaymentVersionItem[], string>();
    detailRows += await bulkInsert(trx, 'payment_versions', versions, [
      ['account_id', 'text', () => accountId],
      ['payment_id', 'text', (v) => v.payment.id],
      ['version', 'integer', (v) => v.version],
      ['customer_id', 'text', (v) => v.payment.customer_id],
      ['started_at', 'date', (v) => v.payment.started_at],
      ['ended_at', 'date', (v) => v.payment.ended_at],
      ['duration_in_months', 'integer', (v) => v.payment.duration_in_months],
      ['total_value', 'bigint', (v) => v.totalValue],
      ['currency', 'text', (v) => v.payment.currency],
      ['invoice_number', 'text', (v) => v.payment.invoice_number],
      [
        'items',
        'jsonb',
        (v) => {
          let json = itemsJson.get(v.payment.items);
          if (json === undefined) {
            json = JSON.stringify(v.payment.items);
            itemsJson.set(v.payment.items, json);
          }
          return json;
        },
      ],
      [
        'discounts',
        'jsonb',
        (v) => JSON.stringify(v.payment.discount ? ([{ ...v.payment.discount }] satisfies PaymentVersionDiscount[]) : []),
      ],
      ['valid_from', 'timestamptz', (v) => v.validFrom],
      ['valid_to', 'timestamptz', (v) => v.validTo],
      ['recorded_at', 'timestamptz', (v) => v.validFrom],
    ]);
    await step('payment_details', detailRows);

    const costs = await bulkInsert(trx, 'costs', business.costs, [
      ['account_id', 'text', () => accountId],
      ['id', 'text', (c) => c.id],
      ['name', 'text', (c) => c.name],
      ['value', 'bigint', (c) => c.value],
      ['currency', 'text', (c) => c.currency],
      ['date', 'date', (c) => c.date],
      ['due_date', 'date', (c) => c.due_date],
      ['invoice_number', 'text', (c) => c.invoice_number],
      ['source', 'text', () => 'demo'],
    ]);
    await bulkInsert(trx, 'cost_segment_values', business.costs, [
      ['account_id', 'text', () => accountId],
      ['cost_id', 'text', (c) => c.id],
      ['attribute_id', 'text', () => costAttributeId],
      ['value', 'text', (c) => c.category],
    ]);
    await step('costs', costs);

    // Two reports from the library, computed when the server starts (app.reports.resume).
    const month = { year: Number(today.slice(0, 4)), month: Number(today.slice(5, 7)) };
    for (const template of DEMO_REPORT_TEMPLATES) {
      const found = REPORT_TEMPLATES.find((t) => t.id === template);
      if (!found) continue;
      const report = await insertReport(trx, {
        accountId,
        ownerUserId: userId,
        title: `${today.slice(0, 7)} ${found.name_suffix}`,
        definitionIds: found.definitions,
        period: periodEndingIn(month, DEMO_REPORT_MONTHS),
        today: month,
      });
      // A few key numbers, so the demo's strip shows what a report's strip is for.
      const sections = await trx
        .selectFrom('report_sections')
        .select(['id', 'definition_id'])
        .where('account_id', '=', accountId)
        .where('report_id', '=', report.id)
        .orderBy('position')
        .execute();
      const pinned = DEMO_KEY_NUMBERS.flatMap((definitionId) => sections.filter((section) => section.definition_id === definitionId).slice(0, 1));
      if (pinned.length > 0) {
        await trx
          .insertInto('key_numbers')
          .values(pinned.map((section, position) => ({ account_id: accountId, report_id: report.id, section_id: section.id, definition_id: section.definition_id, position })))
          .execute();
      }
    }
    await step('reports', DEMO_REPORT_TEMPLATES.length);
  });

  return {
    accountId,
    userId,
    counts: { customers: business.customers.length, payments: business.payments.length, costs: business.costs.length },
  };
}
