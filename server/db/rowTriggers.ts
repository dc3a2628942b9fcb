import { sql, type Kysely } from 'kysely';
import type { DB } from './schema';

/**
 * Whether this connection may skip row triggers (`session_replication_role`, a superuser's
 * setting unless granted): PGlite's user always may; a PostgreSQL role may or may not, and
 * without it the foreign keys are checked row by row as usual. Bulk writers (subscription
 * imports, integration syncs) ask it before turning triggers off.
 */
export async function rowTriggersSkippable(trx: Kysely<DB>): Promise<boolean> {
  const found = await sql<{ allowed: boolean }>`select current_setting('is_superuser') = 'on' or has_parameter_privilege('session_replication_role', 'SET') as allowed`.execute(trx);
  return found.rows[0]?.allowed === true;
}
