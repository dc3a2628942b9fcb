import { sql, type Kysely, type Selectable } from 'kysely';
import { publish } from '../cable/streams';
import type { DB, IntegrationName, IntegrationsTable, JsonObject } from '../db/schema';
import type { IntegrationAnswer } from '../../models/integrations';
import { INTEGRATION_NAMES, PROVIDERS } from './registry';

/** How each card connects when no provider is built for it yet (shown disabled). */
const CONNECT_WITHOUT_PROVIDER: Record<IntegrationName, IntegrationAnswer['connect']> = {
  stripe: 'oauth',
  chargebee: 'dialog',
  intercom: 'oauth',
  hubspot: 'oauth',
  zendesk: 'closed_beta',
  fakturownia: 'dialog',
  wfirma: 'dialog',
};

export function isIntegrationName(name: string): name is IntegrationName {
  return (INTEGRATION_NAMES as readonly string[]).includes(name);
}

/** The connect URL of an OAuth provider that can be connected (relative to the site root), else null. */
export function connectUrlOf(name: IntegrationName): string | null {
  const provider = PROVIDERS[name];
  return provider?.connect === 'oauth' ? `/users/auth/${name}` : null;
}

type Row = Pick<
  Selectable<IntegrationsTable>,
  'name' | 'configured' | 'initially_synced' | 'initial_progress' | 'config' | 'sync_status' | 'last_synced_at' | 'last_error'
> & {
  /** Credentials are held (secret_config is not null): only whether, never what. */
  has_secrets?: boolean | null;
};

const ROW_COLUMNS = ['name', 'configured', 'initially_synced', 'initial_progress', 'config', 'sync_status', 'last_synced_at', 'last_error'] as const;
const HAS_SECRETS = sql<boolean>`secret_config is not null`.as('has_secrets');

export function answerOf(name: IntegrationName, row: Row | undefined): IntegrationAnswer {
  const provider = PROVIDERS[name];
  const held = row?.has_secrets === true || row?.configured === true;
  // An OAuth provider with a dialog holding its tokens but not yet its settings is not configured (and never syncs).
  const configured = (row?.configured ?? false) && !(provider?.needsConfiguration?.(row?.config ?? {}) ?? false);
  const authorized = (provider?.connect ?? CONNECT_WITHOUT_PROVIDER[name]) === 'oauth' && held;
  const initiallySynced = row?.initially_synced ?? false;
  return {
    name,
    enabled: provider !== undefined || name === 'zendesk',
    configurable: provider?.configurable ?? false,
    configured,
    authorized,
    initially_synced: initiallySynced,
    initial_progress: initiallySynced ? 100 : Number(row?.initial_progress ?? 0),
    connect_url: connectUrlOf(name),
    connect: provider?.connect ?? CONNECT_WITHOUT_PROVIDER[name],
    sync_status: configured ? (row?.sync_status ?? 'idle') : 'idle',
    last_synced_at: row?.last_synced_at ? new Date(row.last_synced_at).toISOString() : null,
    last_error: configured ? (row?.last_error ?? null) : null,
    config: configured || authorized ? (row?.config ?? {}) : {},
  };
}

/** Every card, in the Data sources section's order. */
export async function readAnswers(db: Kysely<DB>, accountId: string): Promise<IntegrationAnswer[]> {
  const rows = await db.selectFrom('integrations').select([...ROW_COLUMNS, HAS_SECRETS]).where('account_id', '=', accountId).execute();
  const byName = new Map(rows.map((row) => [row.name, row]));
  return INTEGRATION_NAMES.map((name) => answerOf(name, byName.get(name)));
}

export async function readAnswer(db: Kysely<DB>, accountId: string, name: IntegrationName): Promise<IntegrationAnswer> {
  const row = await db.selectFrom('integrations').select([...ROW_COLUMNS, HAS_SECRETS]).where('account_id', '=', accountId).where('name', '=', name).executeTakeFirst();
  return answerOf(name, row);
}

// ------------------------------------------------------------------------------ live channels

/** The stream of IntegrationsChannel: every change of the account's integrations. */
export const integrationsStream = (accountId: string) => `integrations:${accountId}`;
/** The stream of IntegrationStatusEventsChannel: a first sync completed, a sync failed. */
export const integrationEventsStream = (accountId: string) => `integration-events:${accountId}`;

export type IntegrationsMessage = { type: 'integrations'; items: IntegrationAnswer[] } | { type: 'integration'; integration: IntegrationAnswer };
export type IntegrationStatusEvent = { event: 'initially_synced'; integration: IntegrationName } | { event: 'sync_failed'; integration: IntegrationName; error: string };

/** Publishes the integration's current answer to IntegrationsChannel (through `db`: inside a transaction, on commit). */
export async function publishAnswer(db: Kysely<DB>, accountId: string, name: IntegrationName): Promise<IntegrationAnswer> {
  const integration = await readAnswer(db, accountId, name);
  const message: IntegrationsMessage = { type: 'integration', integration };
  await publish(db, { stream: integrationsStream(accountId), account_id: accountId, message });
  return integration;
}

export async function publishStatusEvent(db: Kysely<DB>, accountId: string, event: IntegrationStatusEvent): Promise<void> {
  await publish(db, { stream: integrationEventsStream(accountId), account_id: accountId, message: event });
}

/** A line of the integration's sync log (audit_log, entity 'integration', the name as id). */
export async function logSync(db: Kysely<DB>, accountId: string, name: IntegrationName, event: string, details: JsonObject = {}, userId: string | null = null): Promise<void> {
  await db
    .insertInto('audit_log')
    .values({ account_id: accountId, entity_type: 'integration', entity_id: name, event, status: null, details: JSON.stringify(details), user_id: userId })
    .execute();
}
