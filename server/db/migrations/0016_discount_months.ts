import { sql, type Kysely } from 'kysely';

/**
 * A finite discount lasts a number of months (docs/data-model.md "Discounts"):
 * `payment_discounts.months` is how many months from the payment's start it applies, on the days
 * [started_at, started_at + months) (month arithmetic, day clamped). Null means the whole payment:
 * every forever discount, and finite ones written before this migration (which is how the engine
 * read them until now, so no number moves). Earlier versions keep it in the `discounts` jsonb of
 * `payment_versions` under the same key.
 */
const statements: string[] = [
  `alter table payment_discounts add column months integer`,
  `alter table payment_discounts add constraint payment_discounts_months_check check (months is null or (kind = 'finite' and months >= 1))`,
];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const statement of statements) await sql.raw(statement).execute(db);
}
