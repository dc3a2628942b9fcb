import type { Transaction } from 'kysely';
import type { DB } from '../db/schema';

/**
 * Turns pending invoice items (or the ones given) into payments through the account's import
 * rules (distillers); an item no rule matches becomes distillation_failed (a rejected invoice
 * line on /invoices). Runs inside the caller's transaction. (Stub: being built.)
 */
export async function distillItems(trx: Transaction<DB>, accountId: string, itemIds?: readonly string[]): Promise<{ distilled: number; failed: number }> {
  void trx;
  void accountId;
  void itemIds;
  return { distilled: 0, failed: 0 };
}
