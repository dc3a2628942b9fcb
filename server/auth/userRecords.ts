import type { Kysely } from 'kysely';
import type { DB, JsonValue, PermissionLevel } from '../db/schema';
import type { ApiUser } from './schemas';

/** A user as the auth routes read it: the row plus the account currency it falls back to. */
export interface UserRecord {
  id: string;
  account_id: string;
  email: string;
  name: string;
  password_hash: string | null;
  permission_level: PermissionLevel;
  currency: string | null;
  account_currency: string;
  api_token: string;
  customer_columns: JsonValue[];
}

function selectUsers(db: Kysely<DB>) {
  return db
    .selectFrom('users')
    .innerJoin('accounts', 'accounts.id', 'users.account_id')
    .select([
      'users.id',
      'users.account_id',
      'users.email',
      'users.name',
      'users.password_hash',
      'users.permission_level',
      'users.currency',
      'accounts.currency as account_currency',
      'users.api_token',
      'users.customer_columns',
    ]);
}

export async function findUser(db: Kysely<DB>, accountId: string, userId: string): Promise<UserRecord | undefined> {
  return selectUsers(db).where('users.account_id', '=', accountId).where('users.id', '=', userId).executeTakeFirst();
}

/** By e-mail across accounts (e-mails are unique case-insensitively); `email` is normalized. */
export async function findUserByEmail(db: Kysely<DB>, email: string): Promise<UserRecord | undefined> {
  return selectUsers(db)
    .where((eb) => eb(eb.fn('lower', ['users.email']), '=', email))
    .executeTakeFirst();
}

export async function listAccountUsers(db: Kysely<DB>, accountId: string): Promise<UserRecord[]> {
  return selectUsers(db).where('users.account_id', '=', accountId).orderBy('users.created_at').orderBy('users.id').execute();
}

const asColumns = (value: JsonValue[]): ApiUser['customer_columns'] =>
  value.filter((column): column is { [key: string]: JsonValue } => typeof column === 'object' && column !== null && !Array.isArray(column));

/** The user object of the API; the API token only where the contract shows it. */
export function toApiUser(record: UserRecord, options: { withApiToken?: boolean } = {}): ApiUser {
  return {
    id: record.id,
    email: record.email,
    name: record.name,
    account_id: record.account_id,
    permission_level: record.permission_level,
    currency: record.currency ?? record.account_currency,
    customer_columns: asColumns(record.customer_columns),
    invitation_pending: record.password_hash === null,
    ...(options.withApiToken && record.permission_level === 'user' ? { api_token: record.api_token } : {}),
  };
}

/** A unique-constraint violation (both drivers report PostgreSQL's SQLSTATE). */
export function isUniqueViolation(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === '23505';
}
