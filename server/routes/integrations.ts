import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { CANNOT_CONNECT_MESSAGES, INTEGRATION_LABELS } from '../../models/integrations';
import { authOf } from '../auth/plugin';
import { BEARER, errorResponses } from '../auth/schemas';
import { DEFAULT_PROVIDER_URLS } from '../config';
import type { IntegrationName, JsonObject } from '../db/schema';
import { ApiError } from '../http/errors';
import { connectUrlOf, isIntegrationName, readAnswer, readAnswers } from '../integrations/answers';
import { disconnect, NOT_CONNECTED, saveConnection } from '../integrations/connections';
import { providerFetch } from '../integrations/http';
import { integrationsPlugin } from '../integrations/plugin';
import { INTEGRATION_NAMES, PROVIDERS } from '../integrations/registry';
import { enqueueSync } from '../integrations/runner';
import { CONFIGURATION_BODIES, IntegrationAnswerSchema, NameParams, SyncLogSchema, type ConfigurableIntegrationName } from '../integrations/schemas';
import { openSecrets, secretsKeyOf } from '../integrations/secrets';
import { CannotConnectError, type IntegrationProvider } from '../integrations/types';
import type { JobQueue } from '../jobs/queue';

/**
 * Integrations (the Data sources section of Settings; docs/integrations.md): every card's state,
 * the OAuth connect URLs, saving a configuration (checked against the provider first), disconnect,
 * sync now, and the sync log for support. For the full users of the account.
 */

export const INTEGRATION_NOT_FOUND = 'Integration not found';
export const INTEGRATION_NOT_CONFIGURED = NOT_CONNECTED;
const SYNC_LOG_LIMIT = 100;
/** How long a configuration check may wait for the provider. */
const VERIFY_TIMEOUT_MS = 20_000;

function known(name: string): IntegrationName {
  if (!isIntegrationName(name)) throw ApiError.of(404, INTEGRATION_NOT_FOUND);
  return name;
}

function providerOf(name: string): IntegrationProvider {
  const provider = PROVIDERS[known(name)];
  if (!provider) throw ApiError.of(404, INTEGRATION_NOT_FOUND);
  return provider;
}

export const integrationRoutes: FastifyPluginAsyncTypebox<{ queue?: JobQueue }> = async (app, options) => {
  await app.register(integrationsPlugin, { queue: options.queue });
  const db = app.db.kysely;
  const urls = () => app.config.providerUrls ?? DEFAULT_PROVIDER_URLS;

  app.get(
    '/integrations',
    {
      onRequest: app.requireFullUser,
      schema: {
        tags: ['integrations'],
        operationId: 'listIntegrations',
        summary: 'Every data source card, connected or not',
        security: BEARER,
        response: { 200: Type.Object({ items: Type.Array(IntegrationAnswerSchema) }), ...errorResponses(401, 403) },
      },
    },
    async (request) => ({ items: await readAnswers(db, authOf(request).accountId) }),
  );

  app.get(
    '/integrations/action_urls',
    {
      onRequest: app.requireFullUser,
      schema: {
        tags: ['integrations'],
        operationId: 'integrationActionUrls',
        summary: 'Where the browser goes to connect each data source by OAuth (null: not by OAuth)',
        security: BEARER,
        response: { 200: Type.Object({ data: Type.Record(Type.String(), Type.Union([Type.String(), Type.Null()])) }), ...errorResponses(401, 403) },
      },
    },
    async () => ({ data: Object.fromEntries(INTEGRATION_NAMES.map((name) => [name, connectUrlOf(name)])) }),
  );

  /**
   * Saves a configuration (the shared handler of each provider's `POST /integrations/{provider}`).
   * A dialog provider's body holds its credentials: checked against the provider, then saved with
   * them. An OAuth provider with a dialog (HubSpot, Intercom) keeps the tokens its OAuth connect
   * left (409 when there are none) and saves the dialog's settings beside them.
   */
  async function configure(request: FastifyRequest, name: ConfigurableIntegrationName) {
    const auth = authOf(request);
    const provider = providerOf(name);
    if (!provider.configurable) throw ApiError.of(404, INTEGRATION_NOT_FOUND);
    const parsed = provider.parseConfig(request.body);
    if (Array.isArray(parsed)) throw new ApiError(422, parsed.map((problem) => ({ detail: problem.detail, source: { pointer: problem.pointer } })));
    const oauth = provider.connect === 'oauth';
    let held: Record<string, string> | undefined;
    if (oauth) {
      const row = await db.selectFrom('integrations').select('secret_config').where('account_id', '=', auth.accountId).where('name', '=', provider.name).executeTakeFirst();
      if (!row?.secret_config) throw ApiError.of(409, INTEGRATION_NOT_CONFIGURED);
      held = openSecrets(secretsKeyOf(app.config), row.secret_config);
    }
    try {
      await provider.verify(parsed, { urls: urls(), fetch: providerFetch({ signal: AbortSignal.timeout(VERIFY_TIMEOUT_MS), maxAttempts: 2 }), ...(held ? { secrets: held } : {}) });
    } catch (error) {
      const code = error instanceof CannotConnectError ? error.code : `cannot_connect_to_${provider.name}`;
      const detail = CANNOT_CONNECT_MESSAGES[code as keyof typeof CANNOT_CONNECT_MESSAGES] ?? `We could not connect to ${INTEGRATION_LABELS[provider.name]}`;
      if (!(error instanceof CannotConnectError)) request.log.warn(`integration ${provider.name}: configuration check failed: ${String(error)}`);
      throw new ApiError(422, [{ code, detail, source: { pointer: '/body' } }]);
    }
    if (oauth) await saveConnection(app, auth.accountId, provider.name, { config: parsed.config, secrets: {} }, auth.userId, { keepSecrets: true, mergeConfig: true });
    else await saveConnection(app, auth.accountId, provider.name, { config: parsed.config, secrets: parsed.secrets }, auth.userId);
    return readAnswer(db, auth.accountId, provider.name);
  }

  const CONFIGURE_DOCS: Record<ConfigurableIntegrationName, { operationId: string; description: string }> = {
    chargebee: {
      operationId: 'configureChargebee',
      description:
        'Connects Chargebee with an API key and the site. Each empty field is a 422 on its pointer; credentials Chargebee refuses are a 422 with `code` cannot_connect_to_chargebee. Saving again replaces the configuration.',
    },
    fakturownia: {
      operationId: 'configureFakturownia',
      description:
        'Connects Fakturownia with an API token and the subdomain. Each empty field is a 422 on its pointer; credentials Fakturownia refuses are a 422 with `code` cannot_connect_to_fakturownia.',
    },
    wfirma: {
      operationId: 'configureWfirma',
      description: 'Connects wFirma with a user’s e-mail and password. Each empty field is a 422 on its pointer; credentials wFirma refuses are a 422 with `code` cannot_connect.',
    },
    hubspot: {
      operationId: 'configureHubspot',
      description:
        'After the OAuth connect (`authorized: true`), names the company property holding each customer’s public id; then the first sync starts. 409 before the OAuth connect; an empty name is a 422 on its pointer.',
    },
    intercom: {
      operationId: 'configureIntercom',
      description:
        'After the OAuth connect (`authorized: true`), says where each customer’s public id is (a contact’s or a company’s attribute); then the first sync starts. 409 before the OAuth connect; an empty attribute name is a 422 on its pointer.',
    },
  };

  for (const name of Object.keys(CONFIGURATION_BODIES) as ConfigurableIntegrationName[]) {
    app.post(
      `/integrations/${name}`,
      {
        onRequest: app.requireFullUser,
        schema: {
          tags: ['integrations'],
          operationId: CONFIGURE_DOCS[name].operationId,
          summary: `Saves ${INTEGRATION_LABELS[name]}’s configuration and starts its sync`,
          description: CONFIGURE_DOCS[name].description,
          security: BEARER,
          body: CONFIGURATION_BODIES[name],
          response: { 200: IntegrationAnswerSchema, ...errorResponses(400, 401, 403, 404, 409, 422) },
        },
      },
      (request) => configure(request, name),
    );
  }

  app.delete(
    '/integrations/:name',
    {
      onRequest: app.requireFullUser,
      schema: {
        tags: ['integrations'],
        operationId: 'disconnectIntegration',
        summary: 'Disconnects a data source; what it synced stays',
        security: BEARER,
        params: NameParams,
        response: { 204: Type.Null(), ...errorResponses(401, 403, 404) },
      },
    },
    async (request, reply) => {
      const auth = authOf(request);
      const name = known(request.params.name);
      await disconnect(app, auth.accountId, name, auth.userId);
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/integrations/:name/sync',
    {
      onRequest: app.requireFullUser,
      schema: {
        tags: ['integrations'],
        operationId: 'syncIntegration',
        summary: 'Syncs a connected data source now (the Retry of a failed sync)',
        security: BEARER,
        params: NameParams,
        response: { 202: IntegrationAnswerSchema, ...errorResponses(401, 403, 404, 409) },
      },
    },
    async (request, reply) => {
      const auth = authOf(request);
      const provider = providerOf(request.params.name);
      const row = await db.selectFrom('integrations').select('configured').where('account_id', '=', auth.accountId).where('name', '=', provider.name).executeTakeFirst();
      if (!row?.configured) throw ApiError.of(409, INTEGRATION_NOT_CONFIGURED);
      await enqueueSync(app, auth.accountId, provider.name);
      return reply.code(202).send(await readAnswer(db, auth.accountId, provider.name));
    },
  );

  app.get(
    '/integrations/:name/sync_log',
    {
      onRequest: app.requireFullUser,
      schema: {
        tags: ['integrations'],
        operationId: 'integrationSyncLog',
        summary: 'What happened to a data source’s syncs, newest first (for support)',
        security: BEARER,
        params: NameParams,
        response: { 200: SyncLogSchema, ...errorResponses(401, 403, 404) },
      },
    },
    async (request) => {
      const accountId = authOf(request).accountId;
      const name = known(request.params.name);
      const rows = await db
        .selectFrom('audit_log')
        .select(['created_at', 'event', 'details'])
        .where('account_id', '=', accountId)
        .where('entity_type', '=', 'integration')
        .where('entity_id', '=', name)
        .orderBy('id', 'desc')
        .limit(SYNC_LOG_LIMIT)
        .execute();
      return { items: rows.map((row) => ({ at: new Date(row.created_at).toISOString(), event: row.event, details: row.details as JsonObject })) };
    },
  );
};
