import { Type } from '@fastify/type-provider-typebox';
import { INTEGRATION_NAMES } from './registry';

/** Wire schemas of the integration routes (docs/integrations.md). */

export const IntegrationNameSchema = Type.Union(
  INTEGRATION_NAMES.map((name) => Type.Literal(name)),
  { description: 'The data source' },
);

export const IntegrationAnswerSchema = Type.Object(
  {
    name: IntegrationNameSchema,
    enabled: Type.Boolean({ description: 'A provider is built for it (or it is in closed beta): its card can be clicked' }),
    configurable: Type.Boolean({ description: 'Connecting it opens a configuration dialog' }),
    configured: Type.Boolean({ description: 'Credentials are saved (the dialog was saved, or OAuth completed)' }),
    initially_synced: Type.Boolean({ description: 'Its first full sync finished' }),
    initial_progress: Type.Integer({ minimum: 0, maximum: 100, description: 'The first sync’s percent' }),
    connect_url: Type.Union([Type.String(), Type.Null()], { description: 'Where the browser goes to connect it by OAuth (from the site root), else null' }),
    connect: Type.Union([Type.Literal('oauth'), Type.Literal('dialog'), Type.Literal('closed_beta')]),
    sync_status: Type.Union([Type.Literal('idle'), Type.Literal('queued'), Type.Literal('syncing'), Type.Literal('failed')]),
    last_synced_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: 'When the last successful sync ended' }),
    last_error: Type.Union([Type.String(), Type.Null()], { description: 'Why the last sync failed, in a sentence' }),
    config: Type.Record(Type.String(), Type.Unknown(), { description: 'Non-secret settings (e.g. chargebee_site); never keys, tokens or passwords' }),
  },
);

export const NameParams = Type.Object({ name: Type.String({ minLength: 1, maxLength: 64 }) });

export const SyncLogSchema = Type.Object({
  items: Type.Array(
    Type.Object({ at: Type.String({ format: 'date-time' }), event: Type.String(), details: Type.Record(Type.String(), Type.Unknown()) }),
    { description: 'Newest first, at most 100' },
  ),
});
