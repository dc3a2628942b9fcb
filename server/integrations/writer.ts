import { sql, type Kysely, type Transaction } from 'kysely';
import { durationInMonthsOf, newPaymentId } from '../../models/payments';
import { orderedAlphanumeric } from '../../models/random';
import { newCustomerId } from '../customers/ids';
import type { DB, IntegrationName, ItemType } from '../db/schema';
import { rowTriggersSkippable } from '../db/rowTriggers';
import { unnestColumns } from '../db/unnest';
import { distillItems } from '../invoices/distill';
import { recordVersions } from '../payments/versions';
import { ensureCustomerAttributes } from '../segmentation/attributes';
import type { SyncBatch, SyncDeal, SyncPayment } from './types';

/**
 * Writes one batch of a sync inside the runner's transaction (docs/integrations.md "What a sync
 * writes"), with multi-row statements so a first sync of 100,000 subscriptions stays fast. Every
 * row is keyed by the provider's id, so committing the same batch twice (a sync resumed after a
 * kill) changes nothing:
 * - customers by (account, public_id = the provider's id), source the integration; a customer
 *   the integration created is renamed when the provider renames it;
 * - products made to exist;
 * - payments by (account, source, external_id): new ones inserted with new payment ids; changed
 *   ones versioned (the old row to payment_versions) and rewritten with version + 1; unchanged
 *   ones untouched; `deletedPayments` marked deleted (with a version); a stand-in
 *   (SyncPayment.standIn) never replaces one an invoice decided;
 * - invoice lines inserted or refreshed as 'pending' (a distilled one is left alone) and handed
 *   to the import rules (distillItems) in the same transaction;
 * - deals by (account, source, public_id); a deal's customer by the provider's customer id
 *   (created when missing) or by the public id of a customer the account has (never created);
 *   `deletedDeals` removed;
 * - customer attribute values (a customer's `attributes`, `customerAttributes` by public id) for
 *   the current month, like an attribute values import; the attributes (object 'customer') made
 *   when missing; a public id no customer has is skipped.
 */

// Rising ids, as customers' and payments' are: a sync writes these in bulk too.
const newInvoiceItemId = () => `ii${orderedAlphanumeric(14)}`;
const newDealId = () => `deal${orderedAlphanumeric(12)}`;
/** Rows per INSERT statement (PostgreSQL allows 65,535 parameters). */
const CHUNK = 1_000;
/** Rows per statement that sends them as one parameter (a JSON text or an array): a commit's rows in one round trip. */
const ONE_PARAMETER_CHUNK = 10_000;

/**
 * Whether this connection may skip row triggers (`session_replication_role`: a superuser's, or
 * granted), asked once per process; the embedded database always may.
 */
let bulkAllowed: Promise<boolean> | undefined;
export function mayBulkWrite(trx: Kysely<DB>): Promise<boolean> {
  bulkAllowed ??= rowTriggersSkippable(trx).catch(() => false);
  return bulkAllowed;
}

export interface WriteResult {
  customers: number;
  paymentsInserted: number;
  paymentsChanged: number;
  paymentsDeleted: number;
  invoiceItems: number;
  deals: number;
  /** Deals removed because the provider archived or deleted them. */
  dealsDeleted: number;
  /** Attribute values written (one per customer and attribute). */
  attributeValues: number;
  /** Customer ids by public id this batch wrote or read (KnownCustomers). */
  learned: ReadonlyMap<string, string>;
  /** Product keys this batch made sure exist (KnownProducts). */
  learnedProducts: ReadonlySet<string>;
}

function chunks<T>(rows: readonly T[], size = CHUNK): T[][] {
  const out: T[][] = [];
  for (let k = 0; k < rows.length; k += size) out.push(rows.slice(k, k + size));
  return out;
}

/** The last of each payment key wins, but a stand-in never replaces one that is not (SyncPayment.standIn). */
export function lastPayments(payments: readonly SyncPayment[] | undefined): SyncPayment[] {
  const map = new Map<string, SyncPayment>();
  for (const payment of payments ?? []) {
    const before = map.get(payment.externalId);
    if (payment.standIn && before && !before.standIn) continue;
    map.set(payment.externalId, payment);
  }
  return [...map.values()];
}

/** The last of each key wins (a provider listing one object twice in a batch). */
export function lastBy<T>(rows: readonly T[] | undefined, key: (row: T) => string): T[] {
  const map = new Map<string, T>();
  for (const row of rows ?? []) map.set(key(row), row);
  return [...map.values()];
}

const dayText = (value: unknown): string | null => (value === null || value === undefined ? null : value instanceof Date ? value.toISOString().slice(0, 10) : String(value).slice(0, 10));
const numberOrNull = (value: unknown): number | null => (value === null || value === undefined ? null : Number(value));

/** One array parameter, not a parameter per id: a page of ids is much cheaper to send and plan. */
async function customersByPublicId(trx: Transaction<DB>, accountId: string, publicIds: readonly string[]): Promise<{ id: string; public_id: string }[]> {
  const { rows } = await sql<{ id: string; public_id: string }>`select id, public_id from customers where account_id = ${accountId} and public_id = any(${[...publicIds]}::text[])`.execute(trx);
  return rows;
}

/**
 * Customer ids by public id that a run has learned from its committed batches (`KnownCustomers`)
 * and that the current batch learns (`learned`, handed to the run once its transaction commits):
 * a first sync then looks up only customers it has not written or read before. A customer keeps
 * its row and its public id for good (a deleted or merged one stays, marked deleted), so an id
 * once seen is the one a lookup would find. At most `KNOWN_CUSTOMERS_LIMIT` are kept.
 */
export class KnownCustomers {
  private readonly ids = new Map<string, string>();
  get(publicId: string): string | undefined {
    return this.ids.get(publicId);
  }
  add(learned: ReadonlyMap<string, string>): void {
    for (const [publicId, id] of learned) {
      if (this.ids.size >= KNOWN_CUSTOMERS_LIMIT) return;
      this.ids.set(publicId, id);
    }
  }
}
/** About 100 bytes each: a run of a million customers holds at most about 25 MB of them. */
export const KNOWN_CUSTOMERS_LIMIT = 250_000;

/**
 * Product keys a run has written in its committed batches: a product is never deleted, so a later
 * batch of the run need not write them again (a first sync names the same few products in each
 * of its commits, each a round trip). At most `KNOWN_PRODUCTS_LIMIT` are kept.
 */
export class KnownProducts {
  private readonly keys = new Set<string>();
  has(key: string): boolean {
    return this.keys.has(key);
  }
  add(learned: ReadonlySet<string>): void {
    for (const key of learned) {
      if (this.keys.size >= KNOWN_PRODUCTS_LIMIT) return;
      this.keys.add(key);
    }
  }
}
export const KNOWN_PRODUCTS_LIMIT = 10_000;

interface CustomerMemory {
  known: KnownCustomers | undefined;
  learned: Map<string, string>;
  knownProducts: KnownProducts | undefined;
  learnedProducts: Set<string>;
}

/** The ids of the account's customers with these public ids, created (named by their id) when missing. */
async function customerIds(trx: Transaction<DB>, accountId: string, source: IntegrationName, publicIds: readonly string[], now: Date, memory: CustomerMemory): Promise<Map<string, string>> {
  const ids = new Map<string, string>();
  const unknown: string[] = [];
  for (const publicId of new Set(publicIds)) {
    const id = memory.learned.get(publicId) ?? memory.known?.get(publicId);
    if (id === undefined) unknown.push(publicId);
    else ids.set(publicId, id);
  }
  if (unknown.length === 0) return ids;
  for (const [publicId, id] of await existingCustomerIds(trx, accountId, unknown)) {
    ids.set(publicId, id);
    memory.learned.set(publicId, id);
  }
  const missing = unknown.filter((publicId) => !ids.has(publicId));
  if (missing.length > 0) {
    await upsertCustomers(trx, accountId, source, missing.map((publicId) => ({ externalId: publicId, name: publicId })), now, memory);
    return customerIds(trx, accountId, source, publicIds, now, memory);
  }
  return ids;
}

/** The ids of the account's customers with these public ids; a public id no customer has is left out (nothing is created). */
async function existingCustomerIds(trx: Transaction<DB>, accountId: string, publicIds: readonly string[]): Promise<Map<string, string>> {
  const ids = new Map<string, string>();
  for (const part of chunks([...new Set(publicIds)], ONE_PARAMETER_CHUNK)) {
    for (const row of await customersByPublicId(trx, accountId, part)) ids.set(row.public_id, row.id);
  }
  return ids;
}

/** Inserts new customers and renames the integration's own; the ids of the rows written go to `memory`. */
async function upsertCustomers(trx: Transaction<DB>, accountId: string, source: IntegrationName, customers: { externalId: string; name: string }[], now: Date, memory: CustomerMemory): Promise<void> {
  for (const part of chunks(customers, ONE_PARAMETER_CHUNK)) {
    // One array parameter per column instead of a parameter per value: much cheaper to send and
    // plan for a page of rows, and cheaper to read than one JSON document parsed back into rows.
    const ids = part.map(() => newCustomerId());
    const publicIds = part.map((customer) => customer.externalId);
    const names = part.map((customer) => customer.name.trim() || customer.externalId);
    const { rows: written } = await sql<{ id: string; public_id: string }>`insert into customers (account_id, id, public_id, name, source, added_at, created_at, updated_at)
              select ${accountId}, x.id, x.public_id, x.name, ${source}, ${now}, ${now}, ${now}
                from unnest(${ids}::text[], ${publicIds}::text[], ${names}::text[]) as x(id, public_id, name)
              on conflict (account_id, public_id) where public_id is not null
              do update set name = excluded.name, updated_at = excluded.updated_at
               where customers.source = excluded.source and customers.name is distinct from excluded.name
              returning id, public_id`.execute(trx);
    for (const row of written) memory.learned.set(row.public_id, row.id);
  }
}

interface StoredPayment {
  id: string;
  external_id: string;
  customer_id: string;
  started_at: string | null;
  ended_at: string | null;
  total_value: number | null;
  monthly_amount: number | null;
  currency: string;
  invoice_number: string | null;
  deleted: boolean;
  /** Items and discounts as compared: JSON text. */
  shape: string;
}

export const itemShape = (payment: SyncPayment) => ({ product_key: payment.productKey, type: payment.itemType, quantity: Math.max(0, Math.round(payment.quantity)) });
export const discountShape = (payment: SyncPayment) =>
  payment.discount && payment.discount.monthlyAmount > 0
    ? { kind: payment.discount.kind, monthly_amount: Math.round(payment.discount.monthlyAmount), name: payment.discount.name, months: payment.discount.kind === 'finite' ? (payment.discount.months ?? null) : null }
    : null;
const shapeOf = (payment: SyncPayment) => JSON.stringify({ item: itemShape(payment), discount: discountShape(payment) });

async function storedPayments(trx: Transaction<DB>, accountId: string, source: IntegrationName, externalIds: readonly string[]): Promise<Map<string, StoredPayment>> {
  const stored = new Map<string, StoredPayment>();
  for (const part of chunks(externalIds, ONE_PARAMETER_CHUNK)) {
    const { rows } = await sql<Omit<StoredPayment, 'shape'> & { item: { product_key: string; type: ItemType; quantity: number } | null; discount: StoredPayment['shape'] | null }>`
      select p.id, p.external_id, p.customer_id, p.started_at::text as started_at, p.ended_at::text as ended_at, p.total_value, p.monthly_amount, p.currency,
             p.invoice_number, p.deleted_at is not null as deleted,
             (select jsonb_build_object('product_key', i.product_key, 'type', i.type, 'quantity', i.quantity) from payment_items i
               where i.account_id = p.account_id and i.payment_id = p.id order by i.position limit 1) as item,
             (select jsonb_build_object('kind', d.kind, 'monthly_amount', d.monthly_amount, 'name', d.name, 'months', d.months) from payment_discounts d
               where d.account_id = p.account_id and d.payment_id = p.id order by d.position limit 1) as discount
        from payments p
       where p.account_id = ${accountId} and p.source = ${source} and p.external_id = any(${part}::text[])`.execute(trx);
    for (const row of rows) {
      const item = row.item ? { product_key: row.item.product_key, type: row.item.type, quantity: Number(row.item.quantity) } : null;
      const raw = row.discount as unknown as { kind: string; monthly_amount: number; name: string | null; months: number | null } | null;
      const discount = raw ? { kind: raw.kind, monthly_amount: Number(raw.monthly_amount), name: raw.name, months: raw.months === null ? null : Number(raw.months) } : null;
      stored.set(row.external_id, {
        id: row.id,
        external_id: row.external_id,
        customer_id: row.customer_id,
        started_at: dayText(row.started_at),
        ended_at: dayText(row.ended_at),
        total_value: numberOrNull(row.total_value),
        monthly_amount: numberOrNull(row.monthly_amount),
        currency: row.currency,
        invoice_number: row.invoice_number,
        deleted: Boolean(row.deleted),
        shape: JSON.stringify({ item, discount }),
      });
    }
  }
  return stored;
}

/** The payment's values as stored, but its customer (period, totals, currency, invoice number). */
export function valuesOf(payment: SyncPayment) {
  const open = payment.endedAt === null;
  return {
    started_at: payment.startedAt,
    ended_at: payment.endedAt,
    duration_in_months: open ? null : durationInMonthsOf(payment.startedAt, payment.endedAt as string),
    total_value: open ? null : Math.round(payment.totalValue ?? 0),
    monthly_amount: payment.monthlyAmount,
    currency: payment.currency.toUpperCase(),
    invoice_number: payment.invoiceNumber,
  };
}

/** The payment's row values as stored. */
function rowOf(payment: SyncPayment, customerId: string) {
  return { customer_id: customerId, ...valuesOf(payment) };
}

function unchanged(stored: StoredPayment, row: ReturnType<typeof rowOf>, payment: SyncPayment): boolean {
  return (
    !stored.deleted &&
    stored.customer_id === row.customer_id &&
    stored.started_at === row.started_at &&
    stored.ended_at === row.ended_at &&
    stored.total_value === row.total_value &&
    stored.monthly_amount !== null &&
    Math.abs(stored.monthly_amount - row.monthly_amount) < 1e-6 &&
    stored.currency === row.currency &&
    stored.invoice_number === row.invoice_number &&
    stored.shape === shapeOf(payment)
  );
}

async function writeItems(trx: Transaction<DB>, accountId: string, rows: { id: string; payment: SyncPayment }[]): Promise<void> {
  for (const part of chunks(rows)) {
    await trx
      .insertInto('payment_items')
      .values(part.map(({ id, payment }) => ({ account_id: accountId, payment_id: id, position: 0, ...itemShape(payment) })))
      .execute();
    const discounted = part.filter(({ payment }) => discountShape(payment) !== null);
    if (discounted.length > 0) {
      await trx
        .insertInto('payment_discounts')
        .values(discounted.map(({ id, payment }) => ({ account_id: accountId, payment_id: id, position: 0, ...(discountShape(payment) as NonNullable<ReturnType<typeof discountShape>>) })))
        .execute();
    }
  }
}

/**
 * The parts (CTEs) of a statement that insert new payments from `rows` (a CTE of the batch's
 * payments, each customer's id in `customerColumn`), leaving a key already stored alone, and the
 * item and the discount of each payment inserted (read from `x`, the batch's rows by payment id).
 * `inserted` returns the ids and keys it inserted. The sync writer's statement and the first
 * sync's one-statement commit (statementCommit.ts) both insert this way.
 */
export function newPaymentInserts(accountId: string, source: IntegrationName, now: Date, rows: 'x' | 'resolved', customerColumn: 'customer_id' | 'resolved_customer_id') {
  const from = sql.raw(rows);
  const customer = sql.raw(customerColumn);
  return sql`inserted as (
             insert into payments (account_id, id, customer_id, started_at, ended_at, duration_in_months, total_value, monthly_amount, currency, invoice_number, source, external_id, created_at, updated_at)
             select ${accountId}, r.id, r.${customer}, r.started_at, r.ended_at, r.duration_in_months, r.total_value, r.monthly_amount, r.currency, r.invoice_number, ${source}, r.external_id, ${now}, ${now}
               from ${from} r
             on conflict (account_id, source, external_id) where external_id is not null do nothing
             returning id, external_id),
           items as (
             insert into payment_items (account_id, payment_id, position, product_key, type, quantity)
             select ${accountId}, x.id, 0, x.product_key, x.item_type, x.quantity from x join inserted on inserted.id = x.id),
           discounts as (
             insert into payment_discounts (account_id, payment_id, position, kind, monthly_amount, name, months)
             select ${accountId}, x.id, 0, x.discount_kind, x.discount_amount, x.discount_name, x.discount_months from x join inserted on inserted.id = x.id
              where x.discount_kind is not null)`;
}

type PaymentRow = { id: string; payment: SyncPayment; row: ReturnType<typeof rowOf> };

/**
 * Inserts the payments the account does not have yet, each with its item and discount, in one
 * statement a chunk (an array parameter per column); a payment whose key (source, external id) is already
 * stored is left alone here. Returns the external ids it inserted: on a first sync every payment
 * is new, and nothing has to be looked up before writing.
 */
async function insertNewPayments(trx: Transaction<DB>, accountId: string, source: IntegrationName, rows: readonly PaymentRow[], now: Date): Promise<Set<string>> {
  const inserted = new Set<string>();
  for (const part of chunks(rows, ONE_PARAMETER_CHUNK)) {
    const items = part.map(({ payment }) => itemShape(payment));
    const discounts = part.map(({ payment }) => discountShape(payment));
    // One array parameter per column, typed, rather than one JSON document parsed back into rows.
    const columns: [values: unknown[], type: string][] = [
      [part.map(({ id }) => id), 'text'],
      [part.map(({ row }) => row.customer_id), 'text'],
      [part.map(({ row }) => row.started_at), 'date'],
      [part.map(({ row }) => row.ended_at), 'date'],
      [part.map(({ row }) => row.duration_in_months), 'double precision'],
      [part.map(({ row }) => row.total_value), 'bigint'],
      [part.map(({ row }) => row.monthly_amount), 'double precision'],
      [part.map(({ row }) => row.currency), 'text'],
      [part.map(({ row }) => row.invoice_number), 'text'],
      [part.map(({ payment }) => payment.externalId), 'text'],
      [items.map((item) => item.product_key), 'text'],
      [items.map((item) => item.type), 'text'],
      [items.map((item) => item.quantity), 'integer'],
      [discounts.map((discount) => discount?.kind ?? null), 'text'],
      [discounts.map((discount) => discount?.monthly_amount ?? null), 'bigint'],
      [discounts.map((discount) => discount?.name ?? null), 'text'],
      [discounts.map((discount) => discount?.months ?? null), 'integer'],
    ];
    const { rows: done } = await sql<{ external_id: string }>`
      with x as materialized (
             select * from ${unnestColumns(columns)}
                 as x(id, customer_id, started_at, ended_at, duration_in_months, total_value, monthly_amount,
                      currency, invoice_number, external_id, product_key, item_type, quantity,
                      discount_kind, discount_amount, discount_name, discount_months)),
           ${newPaymentInserts(accountId, source, now, 'x', 'customer_id')}
      select external_id from inserted`.execute(trx);
    for (const row of done) inserted.add(row.external_id);
  }
  return inserted;
}

async function writePayments(trx: Transaction<DB>, accountId: string, source: IntegrationName, payments: SyncPayment[], now: Date, result: WriteResult, memory: CustomerMemory): Promise<void> {
  if (payments.length === 0) return;
  const customers = await customerIds(trx, accountId, source, payments.map((payment) => payment.customerExternalId), now, memory);
  const products = [...new Set(payments.map((payment) => payment.productKey))].filter((key) => !memory.knownProducts?.has(key));
  for (const part of chunks(products)) {
    await trx
      .insertInto('products')
      .values(part.map((key) => ({ account_id: accountId, key, name: key })))
      .onConflict((oc) => oc.columns(['account_id', 'key']).doNothing())
      .execute();
  }
  for (const key of products) memory.learnedProducts.add(key);
  const rows: PaymentRow[] = payments.map((payment) => ({ id: newPaymentId(), payment, row: rowOf(payment, customers.get(payment.customerExternalId) as string) }));
  const inserted = await insertNewPayments(trx, accountId, source, rows, now);
  // The rest are stored already: rewritten (with a version) when they changed, else untouched.
  const known = rows.filter(({ payment }) => !inserted.has(payment.externalId));
  const stored = known.length > 0 ? await storedPayments(trx, accountId, source, known.map(({ payment }) => payment.externalId)) : new Map<string, StoredPayment>();
  const changes: PaymentRow[] = [];
  for (const { payment, row } of known) {
    const found = stored.get(payment.externalId);
    // An invoice decided this payment: a stand-in for it changes nothing.
    if (found && payment.standIn && (found.invoice_number !== null || found.deleted)) continue;
    if (found && !unchanged(found, row, payment)) changes.push({ id: found.id, payment, row });
  }
  if (changes.length > 0) {
    const ids = changes.map((change) => change.id);
    await recordVersions(trx, accountId, ids, now);
    for (const { id, row } of changes) {
      await trx
        .updateTable('payments')
        .set({ ...row, deleted_at: null, updated_at: now, version: (eb) => eb('version', '+', 1) })
        .where('account_id', '=', accountId)
        .where('id', '=', id)
        .execute();
    }
    for (const part of chunks(ids)) {
      await trx.deleteFrom('payment_items').where('account_id', '=', accountId).where('payment_id', 'in', part).execute();
      await trx.deleteFrom('payment_discounts').where('account_id', '=', accountId).where('payment_id', 'in', part).execute();
    }
    await writeItems(trx, accountId, changes);
  }
  result.paymentsInserted += inserted.size;
  result.paymentsChanged += changes.length;
}

async function deletePayments(trx: Transaction<DB>, accountId: string, source: IntegrationName, externalIds: readonly string[], now: Date, result: WriteResult): Promise<void> {
  for (const part of chunks([...new Set(externalIds)])) {
    const rows = await trx
      .selectFrom('payments')
      .select('id')
      .where('account_id', '=', accountId)
      .where('source', '=', source)
      .where('external_id', 'in', part)
      .where('deleted_at', 'is', null)
      .execute();
    const ids = rows.map((row) => row.id);
    if (ids.length === 0) continue;
    await recordVersions(trx, accountId, ids, now);
    await trx
      .updateTable('payments')
      .set({ deleted_at: now, updated_at: now, version: (eb) => eb('version', '+', 1) })
      .where('account_id', '=', accountId)
      .where('id', 'in', ids)
      .execute();
    result.paymentsDeleted += ids.length;
  }
}

async function writeInvoiceItems(trx: Transaction<DB>, accountId: string, source: IntegrationName, batch: SyncBatch, now: Date, result: WriteResult): Promise<void> {
  const items = lastBy(batch.invoiceItems, (item) => item.externalId);
  const touched: string[] = [];
  for (const part of chunks(items)) {
    const rows = await trx
      .insertInto('invoice_items')
      .values(
        part.map((item) => ({
          account_id: accountId,
          id: newInvoiceItemId(),
          source,
          external_id: item.externalId,
          name: item.name,
          value: Math.round(item.value),
          currency: item.currency.toUpperCase(),
          quantity: item.quantity,
          invoice_number: item.invoiceNumber,
          invoice_buyer_name: item.buyerName,
          invoice_buyer_id: item.buyerId,
          invoice_issue_date: item.issueDate,
          processing_status: 'pending' as const,
          created_at: now,
          updated_at: now,
        })),
      )
      .onConflict((oc) =>
        oc
          .columns(['account_id', 'source', 'external_id'])
          .where('external_id', 'is not', null)
          .doUpdateSet((eb) => ({
            name: eb.ref('excluded.name'),
            value: eb.ref('excluded.value'),
            currency: eb.ref('excluded.currency'),
            quantity: eb.ref('excluded.quantity'),
            invoice_number: eb.ref('excluded.invoice_number'),
            invoice_buyer_name: eb.ref('excluded.invoice_buyer_name'),
            invoice_buyer_id: eb.ref('excluded.invoice_buyer_id'),
            invoice_issue_date: eb.ref('excluded.invoice_issue_date'),
            updated_at: now,
          }))
          .where((eb) =>
            eb.and([
              eb('invoice_items.processing_status', 'in', ['pending', 'distillation_failed']),
              sql<boolean>`(invoice_items.name, invoice_items.value, invoice_items.currency, invoice_items.quantity, invoice_items.invoice_number, invoice_items.invoice_buyer_name,
                            invoice_items.invoice_buyer_id, invoice_items.invoice_issue_date)
                           is distinct from (excluded.name, excluded.value, excluded.currency, excluded.quantity, excluded.invoice_number, excluded.invoice_buyer_name,
                            excluded.invoice_buyer_id, excluded.invoice_issue_date)`,
            ]),
          ),
      )
      .returning('id')
      .execute();
    touched.push(...rows.map((row) => row.id));
  }
  result.invoiceItems += touched.length;
  if (touched.length > 0) await distillItems(trx, accountId, touched);
}

async function writeDeals(trx: Transaction<DB>, accountId: string, source: IntegrationName, batch: SyncBatch, now: Date, result: WriteResult, memory: CustomerMemory): Promise<void> {
  const deals = lastBy(batch.deals, (deal) => deal.externalId);
  if (deals.length === 0) return;
  const customerKeys = deals.flatMap((deal) => (!deal.customerPublicId && deal.customerExternalId ? [deal.customerExternalId] : []));
  const customers = customerKeys.length > 0 ? await customerIds(trx, accountId, source, customerKeys, now, memory) : new Map<string, string>();
  const publicKeys = deals.flatMap((deal) => (deal.customerPublicId ? [deal.customerPublicId] : []));
  const existing = publicKeys.length > 0 ? await existingCustomerIds(trx, accountId, publicKeys) : new Map<string, string>();
  const customerOf = (deal: SyncDeal): string | null =>
    deal.customerPublicId ? (existing.get(deal.customerPublicId) ?? null) : deal.customerExternalId ? (customers.get(deal.customerExternalId) ?? null) : null;
  for (const part of chunks(deals)) {
    await trx
      .insertInto('deals')
      .values(
        part.map((deal) => ({
          account_id: accountId,
          id: newDealId(),
          public_id: deal.externalId,
          customer_id: customerOf(deal),
          name: deal.name,
          value: Math.round(deal.value),
          currency: deal.currency.toUpperCase(),
          stage: deal.stage,
          stage_changed_at: deal.stageChangedAt ? new Date(deal.stageChangedAt) : null,
          owner_name: deal.ownerName,
          external_url: deal.externalUrl,
          source,
          created_at: now,
          updated_at: now,
        })),
      )
      .onConflict((oc) =>
        oc
          .columns(['account_id', 'source', 'public_id'])
          .where('public_id', 'is not', null)
          .doUpdateSet((eb) => ({
            customer_id: eb.ref('excluded.customer_id'),
            name: eb.ref('excluded.name'),
            value: eb.ref('excluded.value'),
            currency: eb.ref('excluded.currency'),
            stage: eb.ref('excluded.stage'),
            stage_changed_at: eb.ref('excluded.stage_changed_at'),
            owner_name: eb.ref('excluded.owner_name'),
            external_url: eb.ref('excluded.external_url'),
            updated_at: now,
          })),
      )
      .execute();
  }
  result.deals += deals.length;
}

/** Deals the provider archived or deleted: gone from the deals section (nothing refers to a deal). */
async function deleteDeals(trx: Transaction<DB>, accountId: string, source: IntegrationName, externalIds: readonly string[], result: WriteResult): Promise<void> {
  for (const part of chunks([...new Set(externalIds)])) {
    const { rows } = await sql<{ id: string }>`delete from deals where account_id = ${accountId} and source = ${source} and public_id = any(${part}::text[]) returning id`.execute(trx);
    result.dealsDeleted += rows.length;
  }
}

/**
 * Attribute values of customers by public id, for the current month (UTC): the value in force
 * from this month on (a time-sensitive attribute keeps its history), as an attribute values
 * import writes them. Unchanged values are not rewritten.
 */
async function writeAttributeValues(trx: Transaction<DB>, accountId: string, entries: { publicId: string; values: Record<string, string | null> }[], now: Date, result: WriteResult): Promise<void> {
  const merged = new Map<string, Record<string, string | null>>();
  for (const entry of entries) merged.set(entry.publicId, { ...(merged.get(entry.publicId) ?? {}), ...entry.values });
  const names = [...new Set([...merged.values()].flatMap((values) => Object.keys(values)))];
  if (names.length === 0) return;
  const customers = await existingCustomerIds(trx, accountId, [...merged.keys()]);
  if (customers.size === 0) return;
  const segments = await ensureCustomerAttributes(trx, accountId, names);
  const rows: { customer_id: string; segment_id: string; value: string | null }[] = [];
  for (const [publicId, values] of merged) {
    const customerId = customers.get(publicId);
    if (!customerId) continue;
    for (const [name, value] of Object.entries(values)) {
      const segmentId = segments.get(name);
      if (!segmentId) continue;
      const text = value === null || value === undefined ? null : String(value).trim() || null;
      rows.push({ customer_id: customerId, segment_id: segmentId, value: text });
    }
  }
  const year = now.getUTCFullYear();
  const month = now.getUTCMonth() + 1;
  for (const part of chunks(rows, ONE_PARAMETER_CHUNK)) {
    await sql`insert into customer_segment_values (account_id, customer_id, segment_id, year, month, value, updated_at)
              select ${accountId}, x.customer_id, x.segment_id, ${year}, ${month}, x.value, ${now}
                from json_to_recordset(${JSON.stringify(part)}::json) as x(customer_id text, segment_id text, value text)
              on conflict (account_id, customer_id, segment_id, year, month)
              do update set value = excluded.value, updated_at = excluded.updated_at
               where customer_segment_values.value is distinct from excluded.value`.execute(trx);
  }
  result.attributeValues += rows.length;
}

/**
 * `known`: the customers the run learned from its committed batches; the result's `learned` has
 * the ones this batch wrote or read, for the run to add once the transaction commits.
 */
export async function writeBatch(
  trx: Transaction<DB>,
  accountId: string,
  source: IntegrationName,
  batch: SyncBatch,
  options: {
    now?: Date;
    known?: KnownCustomers;
    knownProducts?: KnownProducts;
    /**
     * The caller has already turned row triggers off for this transaction (it may: mayBulkWrite)
     * and raises the account's data version itself before committing, with nothing in between
     * that needs triggers (the sync runner: round trips saved on each of its commits).
     */
    bulkSetUp?: boolean;
  } = {},
): Promise<WriteResult> {
  const now = options.now ?? new Date();
  const memory: CustomerMemory = { known: options.known, learned: new Map(), knownProducts: options.knownProducts, learnedProducts: new Set() };
  const result: WriteResult = {
    customers: 0,
    paymentsInserted: 0,
    paymentsChanged: 0,
    paymentsDeleted: 0,
    invoiceItems: 0,
    deals: 0,
    dealsDeleted: 0,
    attributeValues: 0,
    learned: memory.learned,
    learnedProducts: memory.learnedProducts,
  };
  // Row triggers (foreign-key checks, the snapshot triggers) skipped where the connection may:
  // every reference is made to exist above its use here, and the account's data version is raised once at the end.
  // With bulkSetUp the caller has done the first and does the last itself.
  const bulk = !options.bulkSetUp && (await mayBulkWrite(trx));
  if (bulk) await sql`set local session_replication_role = replica`.execute(trx);
  const customers = lastBy(batch.customers, (customer) => customer.externalId);
  if (customers.length > 0) await upsertCustomers(trx, accountId, source, customers, now, memory);
  result.customers = customers.length;
  await writePayments(trx, accountId, source, lastPayments(batch.payments), now, result, memory);
  if (batch.deletedPayments?.length) await deletePayments(trx, accountId, source, batch.deletedPayments, now, result);
  if (batch.invoiceItems?.length) await writeInvoiceItems(trx, accountId, source, batch, now, result);
  if (batch.deals?.length) await writeDeals(trx, accountId, source, batch, now, result, memory);
  if (batch.deletedDeals?.length) await deleteDeals(trx, accountId, source, batch.deletedDeals, result);
  const attributeValues = [
    ...customers.flatMap((customer) => (customer.attributes && Object.keys(customer.attributes).length > 0 ? [{ publicId: customer.externalId, values: customer.attributes }] : [])),
    ...(batch.customerAttributes ?? []),
  ];
  if (attributeValues.length > 0) await writeAttributeValues(trx, accountId, attributeValues, now, result);
  if (bulk) {
    // Triggers back on, and the data version raised, in one round trip. Which of the two runs
    // first does not matter: the one trigger the raise meets (accounts_data_version) leaves a
    // row whose data version changed alone.
    await sql`select set_config('session_replication_role', 'origin', true), raise_data_version(array[${accountId}]::text[])`.execute(trx);
  }
  return result;
}
