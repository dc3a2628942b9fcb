import type { FastifyInstance } from 'fastify';
import type { Transaction } from 'kysely';
import { isPaymentId, PAYMENT_ID_MESSAGE, UNKNOWN_PAYMENT_ATTRIBUTE_MESSAGE } from '../../models/payments';
import { newCustomerId } from '../customers/ids';
import { afterChange, asChange } from '../customers/changes';
import type { DB, ItemType } from '../db/schema';
import { ApiError } from '../http/errors';
import { CUSTOMER_NOT_FOUND } from '../routes/customerMetrics';
import type { EditBody, UpsertBody } from './schemas';
import { recordVersion } from './versions';
import { resolvePayment, type CurrentPayment, type PaymentRow, type Problem } from './validation';

/**
 * The payment writes (docs/payments.md): create or replace by a client id, edit, attribute
 * values, delete. Each runs in one transaction that locks the payment row; every write raises
 * the account's data_version through the snapshot triggers, which marks its reports stale; then
 * `afterChange` drops the metrics snapshot and recalculates the latest reports.
 *
 * Versions (the metrics' corrections handling): a change to an existing payment first copies
 * the row as it was (with its items and discounts) into payment_versions, in force from the
 * previous version's end (or the payment's creation) until now, and raises payments.version,
 * the way the subscription import records a changed payment. A delete is recorded the same way
 * and sets deleted_at.
 */

export const PAYMENT_NOT_FOUND = 'Payment not found';


function unprocessable(problems: Problem[]): ApiError {
  return new ApiError(
    422,
    problems.map((problem) => ({ detail: problem.detail, source: { pointer: problem.pointer } })),
  );
}

async function currencies(trx: Transaction<DB>): Promise<Set<string>> {
  const rows = await trx.selectFrom('currencies').select('iso').execute();
  return new Set(rows.map((row) => row.iso));
}

/** The payment row locked for this transaction, with its first item; undefined when it is not there (or, unless `withDeleted`, deleted). */
async function lockPayment(trx: Transaction<DB>, accountId: string, id: string, withDeleted: boolean): Promise<(CurrentPayment & { deleted: boolean }) | undefined> {
  const row = await trx
    .selectFrom('payments')
    .select(['customer_id', 'started_at', 'ended_at', 'duration_in_months', 'total_value', 'monthly_amount', 'currency', 'invoice_number', 'deleted_at'])
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .$if(!withDeleted, (q) => q.where('deleted_at', 'is', null))
    .forUpdate()
    .executeTakeFirst();
  if (!row) return undefined;
  const item = await trx.selectFrom('payment_items').select(['product_key', 'type', 'quantity']).where('account_id', '=', accountId).where('payment_id', '=', id).orderBy('position').limit(1).executeTakeFirst();
  return {
    customer_id: row.customer_id,
    started_at: String(row.started_at),
    ended_at: row.ended_at === null ? null : String(row.ended_at),
    duration_in_months: row.duration_in_months === null ? null : Number(row.duration_in_months),
    total_value: row.total_value === null ? null : Number(row.total_value),
    monthly_amount: row.monthly_amount === null ? null : Number(row.monthly_amount),
    currency: row.currency,
    invoice_number: row.invoice_number,
    item: item ? { product_key: item.product_key, type: item.type as ItemType, quantity: Number(item.quantity) } : null,
    deleted: row.deleted_at !== null,
  };
}

/** The customer the row names: an existing one (locked as a foreign-key check would) or a new one created now. */
async function customerOf(trx: Transaction<DB>, accountId: string, row: PaymentRow, fallback: string | null, now: Date): Promise<string> {
  if (row.customerName !== undefined) {
    const id = newCustomerId();
    await trx.insertInto('customers').values({ account_id: accountId, id, name: row.customerName, source: 'manual', added_at: now, created_at: now, updated_at: now }).execute();
    return id;
  }
  const id = row.customerId ?? fallback;
  const found = id ? await trx.selectFrom('customers').select('id').where('account_id', '=', accountId).where('id', '=', id).where('deleted_at', 'is', null).forKeyShare().executeTakeFirst() : undefined;
  if (!found) throw ApiError.of(404, CUSTOMER_NOT_FOUND, '/body/customer_id');
  return found.id;
}

/** Sets payment attribute values; an unknown attribute is a 422 on its entry. */
async function writeSegments(trx: Transaction<DB>, accountId: string, id: string, segments: NonNullable<EditBody['segments']>): Promise<void> {
  if (segments.length === 0) return;
  const known = new Set(
    (await trx.selectFrom('object_attributes').select('id').where('account_id', '=', accountId).where('object', '=', 'subscription_history').execute()).map((row) => row.id),
  );
  const problems = segments.flatMap((segment, k) => (known.has(segment.id) ? [] : [{ pointer: `/body/segments/${k}/id`, detail: UNKNOWN_PAYMENT_ATTRIBUTE_MESSAGE }]));
  if (problems.length > 0) throw unprocessable(problems);
  // The last value given for an attribute wins.
  const values = new Map(segments.map((segment) => [segment.id, segment.value?.trim() ? segment.value.trim() : null]));
  const cleared = [...values].filter(([, value]) => value === null).map(([attribute]) => attribute);
  const set = [...values].filter((entry): entry is [string, string] => entry[1] !== null);
  if (cleared.length > 0) await trx.deleteFrom('payment_segment_values').where('account_id', '=', accountId).where('payment_id', '=', id).where('attribute_id', 'in', cleared).execute();
  if (set.length > 0) {
    await trx
      .insertInto('payment_segment_values')
      .values(set.map(([attribute, value]) => ({ account_id: accountId, payment_id: id, attribute_id: attribute, value })))
      .onConflict((oc) => oc.columns(['account_id', 'payment_id', 'attribute_id']).doUpdateSet((eb) => ({ value: eb.ref('excluded.value') })))
      .execute();
  }
}

/** The row's fields, its item (its product made to exist) and, unless kept, its discount. */
async function writeRow(trx: Transaction<DB>, accountId: string, id: string, row: PaymentRow, customerId: string, now: Date, existing: boolean): Promise<void> {
  const fields = {
    customer_id: customerId,
    started_at: row.startedAt,
    ended_at: row.endedAt,
    duration_in_months: row.duration,
    total_value: row.total,
    monthly_amount: row.monthly,
    currency: row.currency,
    invoice_number: row.invoiceNumber,
    updated_at: now,
  };
  if (existing) {
    await trx
      .updateTable('payments')
      .set((eb) => ({ ...fields, version: eb('version', '+', 1), deleted_at: null }))
      .where('account_id', '=', accountId)
      .where('id', '=', id)
      .execute();
    await trx.deleteFrom('payment_items').where('account_id', '=', accountId).where('payment_id', '=', id).execute();
  } else {
    await trx.insertInto('payments').values({ account_id: accountId, id, ...fields, source: 'manual', external_id: null, import_id: null, created_at: now }).execute();
  }
  await trx.insertInto('products').values({ account_id: accountId, key: row.item.productKey, name: row.item.productKey }).onConflict((oc) => oc.columns(['account_id', 'key']).doNothing()).execute();
  await trx.insertInto('payment_items').values({ account_id: accountId, payment_id: id, position: 0, product_key: row.item.productKey, type: row.item.type, quantity: row.item.quantity }).execute();
  if (row.discount !== undefined) {
    if (existing) await trx.deleteFrom('payment_discounts').where('account_id', '=', accountId).where('payment_id', '=', id).execute();
    if (row.discount) {
      await trx
        .insertInto('payment_discounts')
        .values({ account_id: accountId, payment_id: id, position: 0, kind: row.discount.kind, monthly_amount: row.discount.monthlyAmount, name: null, months: row.discount.months })
        .execute();
    }
  }
}

const today = (now: Date) => now.toISOString().slice(0, 10);

/** PUT /subscriptions/history/upsert/{id}: a new payment with this id, or the whole payment replaced (a new version). */
export async function upsertPayment(app: FastifyInstance, accountId: string, id: string, body: UpsertBody): Promise<void> {
  // Not an id this account could hold (another kind of id, or garbage): 404 like any payment that is not the account's, with the rule.
  if (!isPaymentId(id)) throw ApiError.of(404, PAYMENT_ID_MESSAGE, '/params/id');
  const now = app.now();
  await asChange(() =>
    app.db.kysely.transaction().execute(async (trx) => {
      const current = await lockPayment(trx, accountId, id, true);
      // Client ids are random (62^12): one another account holds is not this account's to take.
      if (!current && (await trx.selectFrom('payments').select('account_id').where('id', '=', id).where('account_id', '<>', accountId).limit(1).executeTakeFirst())) {
        throw ApiError.of(404, PAYMENT_NOT_FOUND);
      }
      const resolved = resolvePayment(body, current ?? null, { today: today(now), replace: true, currencies: await currencies(trx) });
      if ('problems' in resolved) throw unprocessable(resolved.problems);
      const customerId = await customerOf(trx, accountId, resolved.row, null, now);
      if (current) await recordVersion(trx, accountId, id, now);
      await writeRow(trx, accountId, id, resolved.row, customerId, now, current !== undefined);
      if (body.segments) await writeSegments(trx, accountId, id, body.segments);
    }),
  );
  await afterChange(app, accountId);
}

/** Whether an edit's body holds payment fields (else it sets attribute values only). */
function changesPayment(body: EditBody): boolean {
  return Object.entries(body).some(([field, value]) => field !== 'segments' && value !== undefined);
}

/**
 * PUT /subscriptions/history/{id}: the fields given replace the payment's (a new version), the
 * rest keep their value; `{segments}` alone sets payment attribute values (no new version: the
 * values are not versioned). 404 for a payment that is not the account's or is deleted.
 */
export async function editPayment(app: FastifyInstance, accountId: string, id: string, body: EditBody): Promise<void> {
  const now = app.now();
  await asChange(() =>
    app.db.kysely.transaction().execute(async (trx) => {
      const current = await lockPayment(trx, accountId, id, false);
      if (!current) throw ApiError.of(404, PAYMENT_NOT_FOUND);
      if (changesPayment(body)) {
        const resolved = resolvePayment(body, current, { today: today(now), replace: false, currencies: await currencies(trx) });
        if ('problems' in resolved) throw unprocessable(resolved.problems);
        const customerId = await customerOf(trx, accountId, resolved.row, current.customer_id, now);
        await recordVersion(trx, accountId, id, now);
        await writeRow(trx, accountId, id, resolved.row, customerId, now, true);
      }
      if (body.segments) await writeSegments(trx, accountId, id, body.segments);
    }),
  );
  await afterChange(app, accountId);
}

/** DELETE /subscriptions/history/{id}: the payment leaves every list and number; its last version is recorded. */
export async function deletePayment(app: FastifyInstance, accountId: string, id: string): Promise<void> {
  const now = app.now();
  await asChange(() =>
    app.db.kysely.transaction().execute(async (trx) => {
      const current = await lockPayment(trx, accountId, id, false);
      if (!current) throw ApiError.of(404, PAYMENT_NOT_FOUND);
      await recordVersion(trx, accountId, id, now);
      await trx
        .updateTable('payments')
        .set((eb) => ({ deleted_at: now, updated_at: now, version: eb('version', '+', 1) }))
        .where('account_id', '=', accountId)
        .where('id', '=', id)
        .execute();
    }),
  );
  await afterChange(app, accountId);
}
