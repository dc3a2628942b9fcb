import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { CANNOT_CONNECT_MESSAGES, INTEGRATION_LABELS } from '../../models/integrations';
import { authOf } from '../auth/plugin';
import { BEARER, errorResponses } from '../auth/schemas';
import { DEFAULT_PROVIDER_URLS } from '../config';
import type { IntegrationName, JsonObject } from '../db/schema';
import { ApiError } from '../http/errors';
import { connectUrlOf, isIntegrationName, readAnswer, readAnswers } from '../integrations/answers';
import { disconnect, saveConnection } from '../integrations/connections';
import { providerFetch } from '../integrations/http';
import { integrationsPlugin } from '../integrations/plugin';
import { INTEGRATION_NAMES, PROVIDERS } from '../integrations/registry';
import { enqueueSync } from '../integrations/runner';
import { IntegrationAnswerSchema, NameParams, SyncLogSchema } from '../integrations/schemas';
import { CannotConnectError, type IntegrationProvider } from '../integrations/types';
import type { JobQueue } from '../jobs/queue';

/**
 * Integrations (the Data sources section of Settings; docs/integrations.md): every card's state,
 * the OAuth connect URLs, saving a configuration (checked against the provider first), disconnect,
 * sync now, and the sync log for support. For the full users of the account.
 */

export const INTEGRATION_NOT_FOUND = 'Integration not found';
export const INTEGRATION_NOT_CONFIGURED = 'The integration is not connected';
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

  app.post(
    '/integrations/:name',
    {
      onRequest: app.requireFullUser,
      schema: {
        tags: ['integrations'],
        operationId: 'configureIntegration',
        summary: 'Saves a data source’s configuration and starts its sync',
        description:
          'The body is the provider’s configuration (Chargebee: `chargebee_api_key`, `chargebee_site`; Fakturownia: `fakturownia_api_token`, `fakturownia_subdomain`). ' +
          'Each empty field is a 422 on its pointer; credentials the provider refuses are a 422 with `code` cannot_connect_to_{provider}. Saving again replaces the configuration.',
        security: BEARER,
        params: NameParams,
        body: Type.Record(Type.String(), Type.Unknown(), { description: 'The provider’s configuration fields' }),
        response: { 200: IntegrationAnswerSchema, ...errorResponses(400, 401, 403, 404, 422) },
      },
    },
    async (request) => {
      const auth = authOf(request);
      const provider = providerOf(request.params.name);
      if (!provider.configurable) throw ApiError.of(404, INTEGRATION_NOT_FOUND);
      const parsed = provider.parseConfig(request.body);
      if (Array.isArray(parsed)) throw new ApiError(422, parsed.map((problem) => ({ detail: problem.detail, source: { pointer: problem.pointer } })));
      try {
        await provider.verify(parsed, { urls: urls(), fetch: providerFetch({ signal: AbortSignal.timeout(VERIFY_TIMEOUT_MS), maxAttempts: 2 }) });
      } catch (error) {
        const code = error instanceof CannotConnectError ? error.code : `cannot_connect_to_${provider.name}`;
        const detail = CANNOT_CONNECT_MESSAGES[code as keyof typeof CANNOT_CONNECT_MESSAGES] ?? `We could not connect to ${INTEGRATION_LABELS[provider.name]}`;
        if (!(error instanceof CannotConnectError)) request.log.warn(`integration ${provider.name}: configuration check failed: ${String(error)}`);
        throw new ApiError(422, [{ code, detail, source: { pointer: '/body' } }]);
      }
      await saveConnection(app, auth.accountId, provider.name, { config: parsed.config, secrets: parsed.secrets }, auth.userId);
      return readAnswer(db, auth.accountId, provider.name);
    },
  );

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
