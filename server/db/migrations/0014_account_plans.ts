import type { Kysely } from 'kysely';

/** Stub (issue 21): the account's plan. */
export async function up(_db: Kysely<unknown>): Promise<void> {}
