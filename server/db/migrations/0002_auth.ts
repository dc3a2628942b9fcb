import { sql, type Kysely } from 'kysely';

/**
 * What sign-in, invitations and throttling need beyond 0001 (docs/data-model.md, docs/api-auth.md):
 *
 * - An invited colleague is a `users` row without a password until the invitation is accepted,
 *   so `password_hash` becomes nullable (null = invitation pending; such a user cannot sign in).
 * - An invitation names the user row it completes (`user_id`), inside the same account.
 * - `sign_in_attempts` is the shared throttle of sign-in (per e-mail and per client address,
 *   kept in PostgreSQL so every API instance agrees). It is pre-authentication data that belongs
 *   to no account, so it has no `account_id`: a system table like `outbox_emails`.
 */
const statements: string[] = [
  `alter table users alter column password_hash drop not null`,
  `alter table invitations add column user_id text not null`,
  `alter table invitations add constraint invitations_user_fkey
     foreign key (account_id, user_id) references users (account_id, id) on delete cascade`,
  `create index invitations_user_idx on invitations (account_id, user_id)`,
  `create index password_reset_tokens_user_idx on password_reset_tokens (account_id, user_id)`,
  `create table sign_in_attempts (
    id bigint generated always as identity primary key,
    email_key text not null,
    ip text not null,
    succeeded boolean not null,
    attempted_at timestamptz not null
  )`,
  `create index sign_in_attempts_email_idx on sign_in_attempts (email_key, attempted_at)`,
  `create index sign_in_attempts_ip_idx on sign_in_attempts (ip, attempted_at)`,
  `create index sign_in_attempts_attempted_at_idx on sign_in_attempts (attempted_at)`,
];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const statement of statements) {
    await sql.raw(statement).execute(db);
  }
}
