import { sql, type Transaction } from 'kysely';
import { endDateOf, newPaymentId } from '../../models/payments';
import { newCustomerId } from '../customers/ids';
import type { DB, ItemType, PaymentSource } from '../db/schema';

/**
 * Import rules (distillers) turn invoice line items into payments (docs/invoices.md). A line
 * whose name equals a rule's line name becomes one payment:
 * - its customer is the invoice's buyer, public id `{source}:{buyer id, else buyer name}`,
 *   created when missing (a deleted one comes back);
 * - its period is the rule's months from the issue date ('started_at'), or the months that end
 *   on the issue date ('ended_at');
 * - its total is the line's gross value (the quantity is already in it), in the line's currency,
 *   with one item of the rule's product and type;
 * - source is the line's source and external_id the line's id, so a line never makes two.
 * The line is then 'distilled' with its payment_id; a line no rule matches is
 * 'distillation_failed' (a rejected line on /invoices). A distilled line is never touched again.
 */


const PAYMENT_SOURCES: readonly string[] = ['manual', 'csv_import', 'api', 'demo', 'stripe', 'chargebee', 'hubspot', 'intercom', 'zendesk', 'fakturownia', 'wfirma'];

interface ItemRow {
  id: string;
  source: string;
  name: string;
  value: number;
  currency: string;
  quantity: number;
  invoice_number: string | null;
  invoice_buyer_name: string | null;
  invoice_buyer_id: string | null;
  invoice_issue_date: string | null;
  created_at: Date;
}

interface Rule {
  item_type: ItemType;
  issue_date_treatment: 'started_at' | 'ended_at';
  product_key: string;
  duration_in_months: number;
}

/** A calendar day as read from the database (a string, or a Date on some drivers). */
const dayText = (value: unknown): string => (value instanceof Date ? value.toISOString().slice(0, 10) : String(value).slice(0, 10));

/** The payment's period: [start, end) of `months` from or up to the issue day. */
export function periodOf(issueDay: string, treatment: 'started_at' | 'ended_at', months: number): { startedAt: string; endedAt: string } {
  if (treatment === 'started_at') return { startedAt: issueDay, endedAt: endDateOf(issueDay, months) };
  return { startedAt: endDateOf(issueDay, -months), endedAt: issueDay };
}

/** The buyer's public id of a line, and the name a new customer gets. */
export function buyerOf(item: { source: string; invoice_buyer_id: string | null; invoice_buyer_name: string | null }): { publicId: string; name: string } {
  const key = item.invoice_buyer_id?.trim() || item.invoice_buyer_name?.trim() || 'unknown buyer';
  return { publicId: `${item.source}:${key}`, name: item.invoice_buyer_name?.trim() || item.invoice_buyer_id?.trim() || 'Unknown buyer' };
}

/** The customer of this public id (a deleted one restored), or a new one. */
async function customerFor(trx: Transaction<DB>, accountId: string, buyer: { publicId: string; name: string }, source: string, now: Date): Promise<string> {
  const found = await trx.selectFrom('customers').select(['id', 'deleted_at']).where('account_id', '=', accountId).where('public_id', '=', buyer.publicId).forUpdate().executeTakeFirst();
  if (found) {
    if (found.deleted_at !== null) await trx.updateTable('customers').set({ deleted_at: null, updated_at: now }).where('account_id', '=', accountId).where('id', '=', found.id).execute();
    return found.id;
  }
  const id = newCustomerId();
  await trx.insertInto('customers').values({ account_id: accountId, id, name: buyer.name, public_id: buyer.publicId, source, added_at: now, created_at: now, updated_at: now }).execute();
  return id;
}

/**
 * Distils the account's pending or rejected line items of these ids (or, without ids, every
 * pending one) inside the caller's transaction; answers how many became payments and how many
 * were rejected.
 */
export async function distillItems(trx: Transaction<DB>, accountId: string, itemIds?: readonly string[]): Promise<{ distilled: number; failed: number }> {
  if (itemIds !== undefined && itemIds.length === 0) return { distilled: 0, failed: 0 };
  const items = (await trx
    .selectFrom('invoice_items')
    .select(['id', 'source', 'name', 'value', 'currency', 'quantity', 'invoice_number', 'invoice_buyer_name', 'invoice_buyer_id', 'invoice_issue_date', 'created_at'])
    .where('account_id', '=', accountId)
    .$if(itemIds === undefined, (q) => q.where('processing_status', '=', 'pending'))
    .$if(itemIds !== undefined, (q) => q.where('id', 'in', itemIds as string[]).where('processing_status', 'in', ['pending', 'distillation_failed']))
    .orderBy('id')
    .forUpdate()
    .execute()) as unknown as ItemRow[];
  if (items.length === 0) return { distilled: 0, failed: 0 };

  const names = [...new Set(items.map((item) => item.name))];
  const rules = await trx
    .selectFrom('distillers')
    .select(['line_name', 'item_type', 'issue_date_treatment', 'product_key', 'duration_in_months'])
    .where('account_id', '=', accountId)
    .where('matcher', '=', 'equal')
    .where('line_name', 'in', names)
    .execute();
  const ruleOf = new Map<string, Rule>(rules.map((rule) => [rule.line_name, { ...rule, duration_in_months: Number(rule.duration_in_months) }]));

  const now = new Date();
  const customers = new Map<string, string>();
  const failed: string[] = [];
  let distilled = 0;
  for (const item of items) {
    const rule = ruleOf.get(item.name);
    const value = Number(item.value);
    // A correction (negative value) or a source payments cannot have stays for a person to look at.
    if (!rule || value < 0 || !PAYMENT_SOURCES.includes(item.source)) {
      failed.push(item.id);
      continue;
    }
    const issueDay = item.invoice_issue_date === null ? dayText(item.created_at) : dayText(item.invoice_issue_date);
    const { startedAt, endedAt } = periodOf(issueDay, rule.issue_date_treatment, rule.duration_in_months);
    const buyer = buyerOf(item);
    let customerId = customers.get(buyer.publicId);
    if (!customerId) {
      customerId = await customerFor(trx, accountId, buyer, item.source, now);
      customers.set(buyer.publicId, customerId);
    }
    const source = item.source as PaymentSource;
    const existing = await trx.selectFrom('payments').select('id').where('account_id', '=', accountId).where('source', '=', source).where('external_id', '=', item.id).executeTakeFirst();
    let paymentId = existing?.id;
    if (!paymentId) {
      paymentId = newPaymentId();
      await trx
        .insertInto('payments')
        .values({
          account_id: accountId,
          id: paymentId,
          customer_id: customerId,
          started_at: startedAt,
          ended_at: endedAt,
          duration_in_months: rule.duration_in_months,
          total_value: value,
          monthly_amount: null,
          currency: item.currency,
          invoice_number: item.invoice_number,
          source,
          external_id: item.id,
          import_id: null,
          created_at: now,
          updated_at: now,
        })
        .execute();
      await trx.insertInto('products').values({ account_id: accountId, key: rule.product_key, name: rule.product_key }).onConflict((oc) => oc.columns(['account_id', 'key']).doNothing()).execute();
      await trx
        .insertInto('payment_items')
        .values({ account_id: accountId, payment_id: paymentId, position: 0, product_key: rule.product_key, type: rule.item_type, quantity: Math.max(1, Math.round(Number(item.quantity))) })
        .execute();
    }
    await trx
      .updateTable('invoice_items')
      .set({ processing_status: 'distilled', payment_id: paymentId, updated_at: now })
      .where('account_id', '=', accountId)
      .where('id', '=', item.id)
      .execute();
    distilled++;
  }
  if (failed.length > 0) {
    await trx
      .updateTable('invoice_items')
      .set({ processing_status: 'distillation_failed', updated_at: now })
      .where('account_id', '=', accountId)
      .where('id', 'in', failed)
      .where(sql<boolean>`processing_status <> 'distillation_failed'`)
      .execute();
  }
  return { distilled, failed: failed.length };
}
