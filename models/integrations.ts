import { enums, object, type Infer } from 'superstruct';
import { requiredString } from './validation';

/**
 * Integrations: the data sources an account connects (the Data sources section of Settings).
 * The configuration dialogs and the server check a configuration with the same rules and
 * messages (the spec's), below; the wire shape of an integration is in docs/integrations.md.
 */

export const INTEGRATION_NAMES = ['stripe', 'chargebee', 'intercom', 'zendesk', 'hubspot', 'fakturownia', 'wfirma'] as const;
export type IntegrationName = (typeof INTEGRATION_NAMES)[number];

/** Names shown on cards and in messages. */
export const INTEGRATION_LABELS: Record<IntegrationName, string> = {
  stripe: 'Stripe',
  chargebee: 'Chargebee',
  intercom: 'Intercom',
  zendesk: 'Zendesk',
  hubspot: 'HubSpot',
  fakturownia: 'Fakturownia',
  wfirma: 'wFirma',
};

/** Card states (the spec's words); the percent replaces N. */
export const CONFIGURATION_NEEDED = 'Configuration needed';
export const CONNECTED = 'Connected';
export const syncInProgress = (percent: number): string => `Sync in progress (${Math.round(percent)}%)`;
export const CLOSED_BETA_TITLE = 'Integration in closed beta';

export const ATTRIBUTE_NAME_EMPTY = 'Attribute name cannot be empty';
export const CHARGEBEE_API_KEY_EMPTY = 'ChargeBee API Key cannot be empty';
export const CHARGEBEE_SITE_EMPTY = 'ChargeBee site cannot be empty';
export const FAKTUROWNIA_TOKEN_EMPTY = 'Fakturownia API token cannot be empty';
export const FAKTUROWNIA_SUBDOMAIN_EMPTY = 'Subdomain cannot be empty';
export const WFIRMA_EMAIL_EMPTY = 'wFirma email cannot be empty';
export const WFIRMA_PASSWORD_EMPTY = 'wFirma password cannot be empty';
export const SAVE_CONFIGURATION_FAILURE = 'We could not save configuration';

/** Provider error codes of a refused configuration, with the texts the dialog shows. */
export const CANNOT_CONNECT_MESSAGES = {
  cannot_connect_to_chargebee: 'We could not connect to Chargebee, please make sure your Site and API token are correct',
  // The spec gives these two as analogous to Chargebee's without their exact text.
  cannot_connect_to_fakturownia: 'We could not connect to Fakturownia, please make sure your Subdomain and API token are correct',
  cannot_connect: 'We could not connect to wFirma, please make sure your e-mail and password are correct',
} as const;
export type CannotConnectCode = keyof typeof CANNOT_CONNECT_MESSAGES;

/** Configuration bodies of `POST /integrations/{name}` (the spec's fields). */
export const IntercomConfiguration = object({
  customer_public_id_path: object({ object_type: enums(['customer', 'company']), attribute_name: requiredString(ATTRIBUTE_NAME_EMPTY) }),
});
export const HubspotConfiguration = object({ public_id_attribute_name: requiredString(ATTRIBUTE_NAME_EMPTY) });
export const ChargebeeConfiguration = object({ chargebee_api_key: requiredString(CHARGEBEE_API_KEY_EMPTY), chargebee_site: requiredString(CHARGEBEE_SITE_EMPTY) });
export const FakturowniaConfiguration = object({
  fakturownia_api_token: requiredString(FAKTUROWNIA_TOKEN_EMPTY),
  fakturownia_subdomain: requiredString(FAKTUROWNIA_SUBDOMAIN_EMPTY),
});
export const WfirmaConfiguration = object({ wfirma_email: requiredString(WFIRMA_EMAIL_EMPTY), wfirma_password: requiredString(WFIRMA_PASSWORD_EMPTY) });

export type IntercomConfigurationBody = Infer<typeof IntercomConfiguration>;
export type HubspotConfigurationBody = Infer<typeof HubspotConfiguration>;
export type ChargebeeConfigurationBody = Infer<typeof ChargebeeConfiguration>;
export type FakturowniaConfigurationBody = Infer<typeof FakturowniaConfiguration>;
export type WfirmaConfigurationBody = Infer<typeof WfirmaConfiguration>;

/** Longest configuration value kept (keys, sites, names). */
export const CONFIGURATION_VALUE_MAX = 500;

/** A Chargebee site or Fakturownia subdomain: the name in `{name}.chargebee.com`, letters, digits and dashes. */
export const SITE_PATTERN = /^[a-z0-9][a-z0-9-]{0,62}$/i;
export const SITE_INVALID = 'Use the site name only: letters, digits and dashes';

// ---------------------------------------------------------------------------------------
// What the API answers about an integration (GET /integrations, IntegrationsChannel, the POST
// and sync routes): the server builds it, the cards' machine reads it. tests/src/api/wireTypes
// checks it is the API document's.

/** How a card connects: a redirect to the provider (OAuth), a configuration dialog, or the closed-beta dialog. */
export type IntegrationConnectKind = 'oauth' | 'dialog' | 'closed_beta';

/** The sync on the server: nothing running, waiting on the queue, running, or the last run failed. */
export type IntegrationSyncStatus = 'idle' | 'queued' | 'syncing' | 'failed';

/** An integration as the API answers it (the fields the card reads). */
export interface IntegrationAnswer {
  name: IntegrationName;
  /** A provider exists (or the closed beta); a disabled card is greyed and does nothing. */
  enabled: boolean;
  /** Connects through a configuration dialog. */
  configurable: boolean;
  /** Credentials saved (the dialog saved, or OAuth completed) and nothing left to configure: it syncs. */
  configured: boolean;
  /**
   * OAuth tokens are held. An OAuth integration with a dialog (HubSpot, Intercom) is authorized
   * and not configured until its dialog is saved: the card says 'Configuration needed' and opens
   * the dialog instead of redirecting again.
   */
  authorized: boolean;
  initially_synced: boolean;
  /** The first sync's percent, 0-100. */
  initial_progress: number;
  /** Where an OAuth card sends the browser ('/users/auth/stripe'), else null. */
  connect_url: string | null;
  connect: IntegrationConnectKind;
  sync_status: IntegrationSyncStatus;
  /** ISO date-time of the end of the last successful sync. */
  last_synced_at: string | null;
  /** Why the last sync failed, a sentence for the user and support. */
  last_error: string | null;
  /** Non-secret settings (`{chargebee_site: 'acme'}`). */
  config: { [key: string]: unknown };
}
