import { sql, type Kysely } from 'kysely';
import type { DB } from '../db/schema';

/** The customers, their segment values and payments of one account, scoped by the account given once. */
export function customersRepository(db: Kysely<DB>, accountId: string) {
  return {
    /** The customers of these ids that are not deleted (unknown and deleted ids left out; no order). */
    rows(ids: readonly string[]) {
      return db
        .selectFrom('customers')
        .select(['id', 'name', 'public_id', 'parent_id', 'include_in_calculations_by_default', 'deleted_at', 'links', 'added_at'])
        .where('account_id', '=', accountId)
        .where('id', 'in', ids)
        .where('deleted_at', 'is', null)
        .execute();
    },

    /** The customers that are not deleted whose parent is one of these, by name then id. */
    children(parentIds: readonly string[]) {
      return db
        .selectFrom('customers')
        .select(['id', 'parent_id'])
        .where('account_id', '=', accountId)
        .where('parent_id', 'in', parentIds)
        .where('deleted_at', 'is', null)
        .orderBy('name')
        .orderBy('id')
        .execute();
    },

    /**
     * The segment values of these customers with their segments, by segment name and id; per
     * segment the rows not after `month` (months since year 0, January = 0) first, newest first.
     */
    segmentValues(customerIds: readonly string[], month: number) {
      return db
        .selectFrom('customer_segment_values as v')
        .innerJoin('customer_segments as s', (join) => join.onRef('s.account_id', '=', 'v.account_id').onRef('s.id', '=', 'v.segment_id'))
        .select(['v.customer_id', 'v.value', 'v.year', 'v.month', 's.id', 's.name', 's.time_sensitive'])
        .where('v.account_id', '=', accountId)
        .where('v.customer_id', 'in', customerIds)
        .orderBy('s.name')
        .orderBy('s.id')
        .orderBy(sql`v.year * 12 + v.month - 1 <= ${month}`, 'desc')
        .orderBy('v.year', 'desc')
        .orderBy('v.month', 'desc')
        .execute();
    },

    async exists(customerId: string): Promise<boolean> {
      const found = await db.selectFrom('customers').select('id').where('account_id', '=', accountId).where('id', '=', customerId).where('deleted_at', 'is', null).executeTakeFirst();
      return found !== undefined;
    },

    /** The customer's payments that are not deleted, by start date (then id) in `direction`, at most `limit`. */
    payments(customerId: string, direction: 'asc' | 'desc', limit: number) {
      return db
        .selectFrom('payments')
        .select(['id', 'customer_id', 'started_at', 'ended_at', 'duration_in_months', 'total_value', 'monthly_amount', 'currency', 'invoice_number'])
        .where('account_id', '=', accountId)
        .where('customer_id', '=', customerId)
        .where('deleted_at', 'is', null)
        .orderBy('started_at', direction)
        .orderBy('id', direction)
        .limit(limit)
        .execute();
    },

    /** The items of these payments, by payment and position. */
    paymentItems(paymentIds: readonly string[]) {
      return db
        .selectFrom('payment_items')
        .select(['payment_id', 'product_key', 'type', 'quantity'])
        .where('account_id', '=', accountId)
        .where('payment_id', 'in', paymentIds.length > 0 ? paymentIds : [''])
        .orderBy('payment_id')
        .orderBy('position')
        .execute();
    },
  };
}
