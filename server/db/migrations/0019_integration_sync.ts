import { sql, type Kysely } from 'kysely';

/**
 * Integrations that sync (docs/integrations.md).
 *
 * - `integrations` gets the state of its sync: the status the card and the integrationSync
 *   machine show, the cursor of the last committed batch (a sync killed mid-way resumes there),
 *   whether the run is the first full one, when the run and the last successful one started,
 *   and the provider's id of the connected account (Stripe's `acct_…`), by which a webhook finds
 *   its account.
 * - `oauth_states`: the state of each OAuth connect in flight (Stripe, HubSpot, Intercom), checked
 *   on the callback, used once, short-lived. Its key leads with the account like every tenant
 *   table; the state handed to the provider carries the account id beside its random part.
 */
const statements: string[] = [
  `alter table integrations
     add column sync_status text not null default 'idle' check (sync_status in ('idle', 'queued', 'syncing', 'failed')),
     add column sync_mode text check (sync_mode in ('initial', 'incremental')),
     add column sync_cursor jsonb,
     add column sync_started_at timestamptz,
     add column last_success_started_at timestamptz,
     add column external_account_id text`,
  `create unique index integrations_external_account_key on integrations (name, external_account_id) where external_account_id is not null`,
  `create table oauth_states (
     account_id text not null references accounts (id) on delete cascade,
     state text not null check (char_length(state) >= 32),
     provider text not null check (provider in ('stripe', 'hubspot', 'intercom')),
     user_id text not null,
     redirect_url text,
     created_at timestamptz not null default now(),
     expires_at timestamptz not null,
     primary key (account_id, state)
   )`,
];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const statement of statements) await sql.raw(statement).execute(db);
}
