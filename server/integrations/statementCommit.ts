import { sql, type Kysely } from 'kysely';
import { newPaymentId } from '../../models/payments';
import { arrayLiteral } from '../db/arrayLiteral';
import type { DB, IntegrationName, JsonObject } from '../db/schema';
import { newCustomerId } from '../customers/ids';
import type { SyncBatch } from './types';
import { discountShape, itemShape, lastBy, lastPayments, newPaymentInserts, valuesOf, type KnownCustomers, type KnownProducts } from './writer';

/**
 * A first sync's commit in one statement (docs/integrations.md "Syncs", "One statement a
 * commit"): a batch of new customers and new payments, with the run's cursor, written by a single
 * statement in its own transaction, instead of a transaction of six round trips (begin, the
 * ownership check, customers, payments, the cursor, commit). Each round trip waits for this
 * process's event loop, busy reading and mapping the provider's pages, while the database waits
 * for it; and the statement's columns are made before it (`prepareBatch`, called by the provider
 * when it hands the batch over) while the database still writes the batch before.
 *
 * The statement, in order of its parts' data:
 * - takes the integration's row `for update` when the run is still its current one (same start,
 *   'syncing', configured); otherwise it writes nothing and answers `ours: false`;
 * - turns off the wait for the disk (`synchronous_commit`: the cursor commits with its batch) and,
 *   where the connection may, row triggers, before any row is written (every row is made from
 *   a row of that check);
 * - upserts the batch's customers (a customer the integration made is renamed, as writeBatch does),
 *   makes the customers the payments name that the run does not know and the batch has not
 *   (named by their id; an existing one is left alone), and the products not known yet;
 * - inserts the payments with their item and discount, each with its customer's id (known to the
 *   run, written above, or stored);
 * - raises the account's data version when row triggers are off (they would have);
 * - records the cursor and the percent only when every payment was new (`committed`). A payment
 *   already stored (a resumed run, a stand-in and an invoice of the same term) is left out, and
 *   the runner writes the batch again in its usual transaction, which compares and versions
 *   stored payments: the rows this statement committed are then found unchanged.
 */

/** What a batch's statement needs, made before it: columns as array literals (arrayLiteral). */
export interface PreparedBatch {
  customers: { ids: string; publicIds: string; names: string; count: number };
  customerPublicIds: ReadonlySet<string>;
  payments: {
    count: number;
    /** Customer public id of each payment, in column order (their ids are filled in at the commit). */
    customers: readonly string[];
    columns: readonly string[];
  };
  productKeys: readonly string[];
}

/** The payment columns prepared, in the statement's order, with their types. */
const PAYMENT_COLUMNS = [
  ['id', 'text'],
  ['customer_public_id', 'text'],
  ['started_at', 'date'],
  ['ended_at', 'date'],
  ['duration_in_months', 'double precision'],
  ['total_value', 'bigint'],
  ['monthly_amount', 'double precision'],
  ['currency', 'text'],
  ['invoice_number', 'text'],
  ['external_id', 'text'],
  ['product_key', 'text'],
  ['item_type', 'text'],
  ['quantity', 'integer'],
  ['discount_kind', 'text'],
  ['discount_amount', 'bigint'],
  ['discount_name', 'text'],
  ['discount_months', 'integer'],
] as const;

/**
 * A batch that one statement can write: customers (without attribute values) and payments, and
 * nothing the usual transaction must compare or remove. Null for any other batch.
 */
export function prepareBatch(batch: SyncBatch): PreparedBatch | null {
  if (batch.deletedPayments?.length || batch.invoiceItems?.length || batch.deals?.length || batch.deletedDeals?.length || batch.customerAttributes?.length) return null;
  if (batch.customers?.some((customer) => customer.attributes && Object.keys(customer.attributes).length > 0)) return null;
  const customers = lastBy(batch.customers, (customer) => customer.externalId);
  const payments = lastPayments(batch.payments);
  if (customers.length === 0 && payments.length === 0) return null;
  // One pass over the payments into the statement's columns (no object per payment), in PAYMENT_COLUMNS' order.
  const column = () => new Array<string | number | null>(payments.length);
  const [ids, customerPublicIds, startedAt, endedAt, durations, totals, monthly, currencies, invoiceNumbers, externalIds, productKeys, itemTypes, quantities, discountKinds, discountAmounts, discountNames, discountMonths] = [
    column(), column(), column(), column(), column(), column(), column(), column(), column(), column(), column(), column(), column(), column(), column(), column(), column(),
  ] as const;
  const columns = [ids, customerPublicIds, startedAt, endedAt, durations, totals, monthly, currencies, invoiceNumbers, externalIds, productKeys, itemTypes, quantities, discountKinds, discountAmounts, discountNames, discountMonths];
  payments.forEach((payment, k) => {
    const row = valuesOf(payment);
    const item = itemShape(payment);
    const discount = discountShape(payment);
    ids[k] = newPaymentId();
    customerPublicIds[k] = payment.customerExternalId;
    startedAt[k] = row.started_at;
    endedAt[k] = row.ended_at;
    durations[k] = row.duration_in_months;
    totals[k] = row.total_value;
    monthly[k] = row.monthly_amount;
    currencies[k] = row.currency;
    invoiceNumbers[k] = row.invoice_number;
    externalIds[k] = payment.externalId;
    productKeys[k] = item.product_key;
    itemTypes[k] = item.type;
    quantities[k] = item.quantity;
    discountKinds[k] = discount?.kind ?? null;
    discountAmounts[k] = discount?.monthly_amount ?? null;
    discountNames[k] = discount?.name ?? null;
    discountMonths[k] = discount?.months ?? null;
  });
  return {
    customers: {
      ids: arrayLiteral(customers.map(() => newCustomerId())),
      publicIds: arrayLiteral(customers.map((customer) => customer.externalId)),
      names: arrayLiteral(customers.map((customer) => customer.name.trim() || customer.externalId)),
      count: customers.length,
    },
    customerPublicIds: new Set(customers.map((customer) => customer.externalId)),
    payments: {
      count: payments.length,
      customers: customerPublicIds as string[],
      columns: columns.map((values) => arrayLiteral(values)),
    },
    productKeys: [...new Set(payments.map((payment) => payment.productKey))],
  };
}

export interface StatementCommit {
  accountId: string;
  source: IntegrationName;
  /** The run's start (integrations.sync_started_at): the statement writes only while it is the current run's. */
  startedAt: Date;
  cursor: JsonObject | null;
  progress: number;
  /** Row triggers off, the data version raised by the statement (mayBulkWrite). */
  bulk: boolean;
  known: KnownCustomers;
  knownProducts: KnownProducts;
  now?: Date;
}

export interface StatementOutcome {
  /** The run was still the integration's current one (else nothing was written). */
  ours: boolean;
  /** The batch and the cursor were written; false when a payment was stored already (see above). */
  committed: boolean;
  /** Customer ids by public id the statement wrote (KnownCustomers). */
  learned: Map<string, string>;
  /** Product keys it made sure exist (KnownProducts). */
  learnedProducts: Set<string>;
}

export async function commitInOneStatement(db: Kysely<DB>, prepared: PreparedBatch, commit: StatementCommit): Promise<StatementOutcome> {
  const { accountId, source, known } = commit;
  const now = commit.now ?? new Date();
  // Customers the payments name: known to the run (their ids sent), in the batch (read back from
  // its insert), or else made here with an id of ours when no customer has that public id yet.
  const customerIds = prepared.payments.customers.map((publicId) => known.get(publicId) ?? null);
  const named = [...new Set(prepared.payments.customers.filter((publicId, k) => customerIds[k] === null && !prepared.customerPublicIds.has(publicId)))];
  const products = prepared.productKeys.filter((key) => !commit.knownProducts.has(key));
  const settings = commit.bulk
    ? sql`select set_config('synchronous_commit', 'off', true) as synchronous_commit, set_config('session_replication_role', 'replica', true) as role from ours`
    : sql`select set_config('synchronous_commit', 'off', true) as synchronous_commit from ours`;
  const columns = prepared.payments.columns.map((literal, k) => {
    const [, type] = PAYMENT_COLUMNS[k] as (typeof PAYMENT_COLUMNS)[number];
    return sql`${literal}::${sql.raw(type)}[]`;
  });
  const { rows } = await sql<{ ours: boolean; committed: boolean; learned: [string, string][] | null; raised: number }>`
    with ours as (
           select 1 as ours from integrations
            where account_id = ${accountId} and name = ${source} and configured and sync_status = 'syncing' and date_trunc('milliseconds', sync_started_at) = ${commit.startedAt}
            for update),
         settings as materialized (${settings}),
         batch_customers as (
           insert into customers (account_id, id, public_id, name, source, added_at, created_at, updated_at)
           select ${accountId}, x.id, x.public_id, x.name, ${source}, ${now}, ${now}, ${now}
             from settings, unnest(${prepared.customers.ids}::text[], ${prepared.customers.publicIds}::text[], ${prepared.customers.names}::text[]) as x(id, public_id, name)
           on conflict (account_id, public_id) where public_id is not null
           do update set name = excluded.name, updated_at = excluded.updated_at
            where customers.source = excluded.source and customers.name is distinct from excluded.name
           returning id, public_id),
         named_customers as (
           insert into customers (account_id, id, public_id, name, source, added_at, created_at, updated_at)
           select ${accountId}, x.id, x.public_id, x.public_id, ${source}, ${now}, ${now}, ${now}
             from settings, unnest(${arrayLiteral(named.map(() => newCustomerId()))}::text[], ${arrayLiteral(named)}::text[]) as x(id, public_id)
           on conflict (account_id, public_id) where public_id is not null do nothing
           returning id, public_id),
         new_products as (
           insert into products (account_id, key, name)
           select ${accountId}, x.key, x.key from settings, unnest(${arrayLiteral(products)}::text[]) as x(key)
           on conflict (account_id, key) do nothing),
         x as materialized (
           select x.* from settings, unnest(${arrayLiteral(customerIds)}::text[], ${sql.join(columns)})
             as x(customer_id, ${sql.raw(PAYMENT_COLUMNS.map(([name]) => name).join(', '))})),
         resolved as (
           select x.*, coalesce(x.customer_id, b.id, n.id, (select c.id from customers c where c.account_id = ${accountId} and c.public_id = x.customer_public_id)) as resolved_customer_id
             from x left join batch_customers b on x.customer_id is null and b.public_id = x.customer_public_id
                    left join named_customers n on x.customer_id is null and n.public_id = x.customer_public_id),
         ${newPaymentInserts(accountId, source, now, 'resolved', 'resolved_customer_id')},
         cursor_written as (
           update integrations set sync_cursor = ${commit.cursor === null ? null : JSON.stringify(commit.cursor)}::jsonb, initial_progress = ${commit.progress}, updated_at = ${now}
            where account_id = ${accountId} and name = ${source} and exists (select from ours)
              and (select count(*) from inserted) = ${prepared.payments.count}
           returning account_id),
         raised as (
           select raise_data_version(array[${accountId}]::text[]) from ours where ${commit.bulk})
    select exists (select from ours) as ours,
           exists (select from cursor_written) as committed,
           (select count(*) from raised)::int as raised,
           (select json_agg(json_build_array(w.public_id, w.id)) from (select public_id, id from batch_customers union all select public_id, id from named_customers) w) as learned`.execute(db);
  const answer = rows[0];
  const learned = new Map<string, string>();
  for (const [publicId, id] of answer?.learned ?? []) learned.set(publicId, id);
  return { ours: answer?.ours === true, committed: answer?.committed === true, learned, learnedProducts: new Set(products) };
}
