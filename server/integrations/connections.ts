import type { FastifyInstance } from 'fastify';
import type { IntegrationName, JsonObject } from '../db/schema';
import { logSync, publishAnswer } from './answers';
import { enqueueSync } from './runner';
import { sealSecrets, secretsKeyOf } from './secrets';

/**
 * Connecting and disconnecting an integration (the configuration dialog's save, the OAuth
 * callback, the card's disconnect). Credentials are sealed before they reach the database.
 */

export interface Connection {
  /** Non-secret settings shown back to the user (site, subdomain). */
  config: JsonObject;
  /** Keys, tokens, passwords: encrypted at rest, never sent to a client. */
  secrets: Record<string, string>;
  /** The provider's id of the connected account (Stripe `acct_…`), when it has one. */
  externalAccountId?: string | null;
}

const sameJson = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/**
 * Stores the connection (configured true) and queues a sync. When the account at the provider
 * changed (another site, subdomain or connected account), the sync state starts over: the next
 * sync is a new initial one (a run of the old account stops at its next commit). Saving the same
 * account again keeps what was synced and syncs incrementally.
 */
export async function saveConnection(app: FastifyInstance, accountId: string, name: IntegrationName, connection: Connection, userId: string | null = null): Promise<void> {
  const db = app.db.kysely;
  const now = new Date();
  const sealed = sealSecrets(secretsKeyOf(app.config), connection.secrets);
  const externalAccountId = connection.externalAccountId ?? null;
  await db.transaction().execute(async (trx) => {
    const current = await trx
      .selectFrom('integrations')
      .select(['configured', 'config', 'external_account_id'])
      .where('account_id', '=', accountId)
      .where('name', '=', name)
      .forUpdate()
      .executeTakeFirst();
    const sameAccount = !!current?.configured && sameJson(current.config, connection.config) && (current.external_account_id ?? null) === externalAccountId;
    const fresh = {
      configured: true,
      enabled: true,
      config: JSON.stringify(connection.config),
      secret_config: JSON.stringify(sealed),
      external_account_id: externalAccountId,
      last_error: null,
      updated_at: now,
    };
    // Another account at the provider: its sync starts over (a running one stops at its next commit).
    const reset = { initially_synced: false, initial_progress: 0, sync_status: 'idle' as const, sync_mode: null, sync_cursor: null, sync_started_at: null, last_success_started_at: null, last_synced_at: null };
    if (!current) {
      await trx.insertInto('integrations').values({ account_id: accountId, name, ...fresh, ...reset, created_at: now }).execute();
    } else {
      await trx
        .updateTable('integrations')
        .set(sameAccount ? fresh : { ...fresh, ...reset })
        .where('account_id', '=', accountId)
        .where('name', '=', name)
        .execute();
    }
    await logSync(trx, accountId, name, 'configured', { config: connection.config, new_account: !sameAccount }, userId);
  });
  await enqueueSync(app, accountId, name);
}

/**
 * Disconnects: configured false, secrets and the sync state cleared (a running sync stops at its
 * next commit); what was synced stays. Answers false when the integration was never stored.
 */
export async function disconnect(app: FastifyInstance, accountId: string, name: IntegrationName, userId: string | null = null): Promise<boolean> {
  const db = app.db.kysely;
  return db.transaction().execute(async (trx) => {
    const updated = await trx
      .updateTable('integrations')
      .set({
        configured: false,
        secret_config: null,
        external_account_id: null,
        sync_status: 'idle',
        sync_mode: null,
        sync_cursor: null,
        sync_started_at: null,
        last_error: null,
        updated_at: new Date(),
      })
      .where('account_id', '=', accountId)
      .where('name', '=', name)
      .executeTakeFirst();
    if (Number(updated.numUpdatedRows) === 0) return false;
    await logSync(trx, accountId, name, 'disconnected', {}, userId);
    await publishAnswer(trx, accountId, name);
    return true;
  });
}
