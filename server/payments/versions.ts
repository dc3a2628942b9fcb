import { sql, type Transaction } from 'kysely';
import type { DB } from '../db/schema';

/**
 * Versions of payments (the metrics' corrections handling, METRICS.md section 6): before a
 * payment is changed or deleted, the row as it is (with its items and discounts as jsonb) goes
 * to payment_versions, in force from the end of its previous version (or the payment's creation)
 * until `now`; the caller then rewrites the row with version + 1. Used by the payment routes
 * and by the integration writer (many payments in one statement).
 */
export async function recordVersion(trx: Transaction<DB>, accountId: string, id: string, now: Date): Promise<void> {
  await recordVersions(trx, accountId, [id], now);
}

export async function recordVersions(trx: Transaction<DB>, accountId: string, ids: readonly string[], now: Date): Promise<void> {
  if (ids.length === 0) return;
  await sql`insert into payment_versions (account_id, payment_id, version, customer_id, started_at, ended_at, duration_in_months, total_value, monthly_amount,
              currency, invoice_number, items, discounts, deleted, valid_from, valid_to, recorded_at, recorded_by_user_id)
            select p.account_id, p.id, p.version, p.customer_id, p.started_at, p.ended_at, p.duration_in_months, p.total_value, p.monthly_amount,
                   p.currency, p.invoice_number,
                   coalesce((select jsonb_agg(jsonb_build_object('product_key', i.product_key, 'type', i.type, 'quantity', i.quantity) order by i.position)
                               from payment_items i where i.account_id = p.account_id and i.payment_id = p.id), '[]'::jsonb),
                   coalesce((select jsonb_agg(jsonb_build_object('kind', d.kind, 'monthly_amount', d.monthly_amount, 'name', d.name, 'months', d.months) order by d.position)
                               from payment_discounts d where d.account_id = p.account_id and d.payment_id = p.id), '[]'::jsonb),
                   p.deleted_at is not null, f.valid_from, greatest(${now}::timestamptz, f.valid_from), p.updated_at, null
              from payments p
              cross join lateral (select coalesce((select max(v.valid_to) from payment_versions v where v.account_id = p.account_id and v.payment_id = p.id),
                                                  p.created_at) as valid_from) f
             where p.account_id = ${accountId} and p.id = any(${[...ids]}::text[])`.execute(trx);
}
