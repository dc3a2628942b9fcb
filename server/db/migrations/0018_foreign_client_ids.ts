import { sql, type Kysely } from 'kysely';

/**
 * Client-chosen ids (`PUT /costs/upsert/{id}`, `PUT /subscriptions/history/upsert/{id}`): an id
 * another account already holds is answered 404, like every other account's id, which needs a
 * look-up of the id across accounts (the primary keys lead with `account_id`). Costs are few
 * per account, so an index on the id alone is cheap. Payments are not (an import writes a
 * million in one run, and every index costs each of them): a payment create, made by hand,
 * scans for its id instead (docs/payments.md).
 */
const statements: string[] = [`create index costs_id_idx on costs (id)`];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const statement of statements) await sql.raw(statement).execute(db);
}
