import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import type { IntegrationName, JsonObject } from '../db/schema';
import { ApiError } from '../http/errors';
import { logSync, publishAnswer } from './answers';
import { PROVIDERS } from './registry';
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

export const NOT_CONNECTED = 'The integration is not connected';

export interface SaveOptions {
  /**
   * Keep the credentials held (an OAuth provider's dialog: the body has settings, not tokens):
   * `connection.secrets` and `externalAccountId` are ignored; 409 NOT_CONNECTED when none are held.
   */
  keepSecrets?: boolean;
  /** Merge `connection.config` into the held config when it is the same account at the provider (the OAuth part and the dialog's part of one config). */
  mergeConfig?: boolean;
}

/**
 * Stores the connection and queues a sync. When the account at the provider changed (another
 * site, subdomain or connected account), the sync state starts over: the next sync is a new
 * initial one (a run of the old account stops at its next commit). Saving the same account
 * again keeps what was synced and syncs incrementally. An OAuth provider with a dialog whose
 * config still needs its settings (IntegrationProvider.needsConfiguration) is stored with its
 * tokens but not configured, and no sync is queued. Answers whether it is configured.
 */
export async function saveConnection(
  app: FastifyInstance,
  accountId: string,
  name: IntegrationName,
  connection: Connection,
  userId: string | null = null,
  options: SaveOptions = {},
): Promise<boolean> {
  const db = app.db.kysely;
  const now = new Date();
  const provider = PROVIDERS[name];
  const configured = await db.transaction().execute(async (trx) => {
    const current = await trx
      .selectFrom('integrations')
      .select(['configured', 'config', 'external_account_id', sql<boolean>`secret_config is not null`.as('held')])
      .where('account_id', '=', accountId)
      .where('name', '=', name)
      .forUpdate()
      .executeTakeFirst();
    const held = !!current && (current.configured || current.held === true);
    if (options.keepSecrets && !held) throw ApiError.of(409, NOT_CONNECTED);
    const externalAccountId = options.keepSecrets ? (current?.external_account_id ?? null) : (connection.externalAccountId ?? null);
    const sameExternal = held && (current?.external_account_id ?? null) === externalAccountId;
    const config: JsonObject = options.mergeConfig && sameExternal ? { ...(current?.config ?? {}), ...connection.config } : connection.config;
    const ready = !(provider?.needsConfiguration?.(config) ?? false);
    const sameAccount = !!current?.configured && sameExternal && sameJson(current.config, config);
    const fresh = {
      configured: ready,
      enabled: true,
      config: JSON.stringify(config),
      ...(options.keepSecrets ? {} : { secret_config: JSON.stringify(sealSecrets(secretsKeyOf(app.config), connection.secrets)) }),
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
        .set(sameAccount && ready ? fresh : { ...fresh, ...reset })
        .where('account_id', '=', accountId)
        .where('name', '=', name)
        .execute();
    }
    await logSync(trx, accountId, name, ready ? 'configured' : 'authorized', { config, new_account: !sameAccount }, userId);
    if (!ready) await publishAnswer(trx, accountId, name);
    return ready;
  });
  if (configured) await enqueueSync(app, accountId, name);
  return configured;
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
