import { sql, type Kysely } from 'kysely';

/**
 * Plans (server/plans/catalogue.ts, docs/account-settings.md):
 * - `accounts.plan_id`: the account's plan, 'starter' unless chosen; the check lists the
 *   catalogue's ids as they are today (a new plan widens it in a later migration). Demo
 *   accounts move to 'scale', which holds their generated customers.
 * - The account row's trigger raises `data_version` (so the reports turn stale) only when a
 *   column the numbers depend on changes: not for the plan, the name, anonymous access or
 *   `updated_at` alone, and not for an update that writes the values already stored.
 */
const KEPT_OUT = `array['anonymous_access_allowed', 'plan_id', 'name', 'updated_at', 'data_version']`;

const statements: string[] = [
  `create or replace function account_settings_changed() returns trigger language plpgsql as $$
   begin
     if new.data_version = old.data_version
        and (to_jsonb(new) - ${KEPT_OUT}) is distinct from (to_jsonb(old) - ${KEPT_OUT}) then
       new.data_version := old.data_version + 1;
     end if;
     return new;
   end $$`,
  `alter table accounts add column plan_id text not null default 'starter'`,
  `alter table accounts add constraint accounts_plan_id_check check (plan_id in ('starter', 'growth', 'scale', 'enterprise'))`,
  `update accounts set plan_id = 'scale' where is_demo`,
];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const statement of statements) await sql.raw(statement).execute(db);
}
