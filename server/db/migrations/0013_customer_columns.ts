import { sql, type Kysely } from 'kysely';

/** Placeholder: issue 20 fills this migration in. */
const statements: string[] = [];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const statement of statements) await sql.raw(statement).execute(db);
}
