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
    configured: Type.Boolean({ description: 'Credentials are saved (the dialog was saved, or OAuth completed) and nothing is left to configure: it syncs' }),
    authorized: Type.Boolean({
      description: 'OAuth tokens are held (the OAuth connect completed). HubSpot and Intercom also need their dialog saved: authorized and not configured means "Configuration needed"',
    }),
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

// ------------------------------------------------------------------------------ configuration bodies

/**
 * The body of `POST /integrations/{provider}`, one per provider with a dialog. Each field is a
 * string; the schema leaves them optional and untyped so an empty, missing or malformed one gets
 * the dialog's own message (422 on its pointer) from the provider's parseConfig rather than a
 * schema error.
 */
const field = (description: string) => Type.Optional(Type.Unknown({ description: `${description} (a string)` }));

export const CONFIGURATION_BODIES = {
  chargebee: Type.Object(
    {
      chargebee_api_key: field('A Chargebee API key (a read-only key is enough)'),
      chargebee_site: field('The site: `acme` of acme.chargebee.com (the whole address works too)'),
    },
    { description: 'Chargebee configuration' },
  ),
  fakturownia: Type.Object(
    {
      fakturownia_api_token: field('The Fakturownia API token'),
      fakturownia_subdomain: field('The subdomain: `acme` of acme.fakturownia.pl'),
    },
    { description: 'Fakturownia configuration' },
  ),
  wfirma: Type.Object(
    {
      wfirma_email: field('The e-mail of the wFirma user'),
      wfirma_password: field('The password of the wFirma user'),
    },
    { description: 'wFirma configuration' },
  ),
  hubspot: Type.Object(
    {
      public_id_attribute_name: field('The HubSpot company property holding the customer’s public id (its internal name)'),
    },
    { description: 'HubSpot configuration (after the OAuth connect)' },
  ),
  intercom: Type.Object(
    {
      customer_public_id_path: Type.Optional(
        Type.Object(
          {
            object_type: field('Where the public id is: `customer` (the contact) or `company`'),
            attribute_name: field('The attribute holding it: `external_id`, `email`, `custom_attributes.X` (contact); `company_id`, `name`, `custom_attributes.X` (company)'),
          },
          { description: 'Where the customer’s public id is in Intercom' },
        ),
      ),
    },
    { description: 'Intercom configuration (after the OAuth connect)' },
  ),
} as const;

export type ConfigurableIntegrationName = keyof typeof CONFIGURATION_BODIES;
