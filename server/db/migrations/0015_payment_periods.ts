import { sql, type Kysely } from 'kysely';

/**
 * Payments of any service period and open-ended payments (docs/data-model.md "Payments"):
 * - `ended_at` no longer has to be a whole number of months after `started_at`: the check that
 *   tied it to `duration_in_months` goes. A payment covers the days [started_at, ended_at).
 * - `ended_at` null is an open-ended payment (an active subscription exported without an end):
 *   its `duration_in_months` and `total_value` are null too until an end is set.
 * - `duration_in_months` is a real number: whole months as before, or days / (365 / 12).
 * - `monthly_amount`: the payment's monthly amount in minor units of its currency, exact
 *   (total / months may have a fraction of a minor unit; the engine rounds half to even, as it
 *   did when it divided the total itself). Null means total / months (every row written before
 *   this migration, and writers that only know the total); an open-ended payment must have it.
 *   A writer that changes `total_value` or the period sets it too (or sets it null).
 * The same holds for `payment_versions`, which keeps earlier versions.
 */
const statements: string[] = [
  `alter table payments drop constraint if exists payments_check`,
  `alter table payments drop constraint if exists payments_duration_in_months_check`,
  `alter table payments alter column ended_at drop not null`,
  `alter table payments alter column duration_in_months type double precision`,
  `alter table payments alter column duration_in_months drop not null`,
  `alter table payments alter column total_value drop not null`,
  `alter table payments add column monthly_amount double precision`,
  `alter table payments add constraint payments_period_check check (
     (ended_at is null and duration_in_months is null and total_value is null)
     or (ended_at is not null and ended_at > started_at and duration_in_months > 0 and total_value is not null))`,
  `alter table payments add constraint payments_monthly_amount_check check (
     (monthly_amount is null and ended_at is not null)
     or (monthly_amount is not null and monthly_amount >= 0 and monthly_amount < 'Infinity'::double precision))`,

  `alter table payment_versions drop constraint if exists payment_versions_duration_in_months_check`,
  `alter table payment_versions alter column ended_at drop not null`,
  `alter table payment_versions alter column duration_in_months type double precision`,
  `alter table payment_versions alter column duration_in_months drop not null`,
  `alter table payment_versions alter column total_value drop not null`,
  `alter table payment_versions add column monthly_amount double precision`,
  `alter table payment_versions add constraint payment_versions_period_check check (
     (ended_at is null and duration_in_months is null and total_value is null)
     or (ended_at is not null and ended_at > started_at and duration_in_months > 0 and total_value is not null))`,
  `alter table payment_versions add constraint payment_versions_monthly_amount_check check (
     (monthly_amount is null and ended_at is not null)
     or (monthly_amount is not null and monthly_amount >= 0 and monthly_amount < 'Infinity'::double precision))`,
];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const statement of statements) await sql.raw(statement).execute(db);
}
