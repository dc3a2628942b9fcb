import type { IntegrationName } from '../../models/integrations';

/**
 * One integration card's data: what the server answers about an integration (GET
 * /integrations, IntegrationsChannel), why a call of the card failed, and the machine's
 * context and events.
 */

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
  config: Record<string, unknown>;
}

/**
 * Why a saved configuration was refused:
 * - `invalid`: a field is refused (422 with a pointer at it): the message per field;
 * - `cannotConnect`: the provider refused the credentials (422 `cannot_connect_to_…`): its message;
 * - `unavailable`: anything else (no answer, 5xx, an unknown refusal): 'We could not save configuration'.
 */
export interface IntegrationSaveFailure {
  kind: 'invalid' | 'cannotConnect' | 'unavailable';
  /** Field name → its message. */
  fields: Record<string, string>;
  /** Messages not about one field. */
  messages: string[];
}

/** A toast the machine asks for: the sync-complete toast (10 s), or a failed Retry / Disconnect (danger). */
export type IntegrationSyncNotice = { kind: 'syncComplete'; name: IntegrationName } | { kind: 'failure'; message: string };

export interface IntegrationSyncInput {
  name: IntegrationName;
}

export interface IntegrationSyncContext {
  name: IntegrationName;
  /** The server's last answer about the integration (null until the first one). */
  integration: IntegrationAnswer | null;
  /** Percent of the first sync (from the last answer). */
  percent: number;
  /** Why the last sync failed (the sync_failed event's error, or last_error). */
  error: string | null;
  /** Why the last save of the dialog was refused (shown in the dialog). */
  saveFailure: IntegrationSaveFailure | null;
  /** A first sync was seen running: its end shows the sync-complete toast. */
  awaitingFirstSync: boolean;
  /**
   * What IntegrationStatusEventsChannel said while a save or a retry was in flight (the sync it
   * queued may end before the call answers), applied when the call answers; null otherwise.
   */
  heardWhileCalling: { kind: 'synced' } | { kind: 'failed'; error: string } | null;
}

/** Events from the card, its dialog and the live channels. */
export type IntegrationSyncEvent =
  /**
   * The server's answer about the integration (GET /integrations, IntegrationsChannel), named
   * for what it says (`answerEvent`): not configured, its first sync queued or running, synced,
   * or its last sync failed.
   */
  | { type: IntegrationAnswerEventType; integration: IntegrationAnswer }
  /** IntegrationStatusEventsChannel: the first sync completed. */
  | { type: 'integration.initiallySynced' }
  /** IntegrationStatusEventsChannel: a sync failed. */
  | { type: 'integration.syncFailed'; error: string }
  /** The card of a configurable integration was clicked (or 'Change configuration'): the dialog opens (an OAuth one's once authorized). */
  | { type: 'integration.configure' }
  /** The dialog was closed without saving. */
  | { type: 'integration.cancel' }
  /** The dialog's 'Save' with its fields (the body of POST /integrations/{name}). */
  | { type: 'integration.save'; configuration: Record<string, unknown> }
  /** The card of an OAuth integration not authorized yet was clicked: the browser goes to the provider. */
  | { type: 'integration.connect' }
  /** 'Retry' on a failed sync. */
  | { type: 'integration.retry' }
  /** 'Disconnect': stop syncing (the synced data stays). */
  | { type: 'integration.disconnect' };

export type IntegrationSyncEventType = IntegrationSyncEvent['type'];

export type IntegrationAnswerEventType = 'integration.answer.notConfigured' | 'integration.answer.syncing' | 'integration.answer.synced' | 'integration.answer.failed';
export type IntegrationAnswerEvent = Extract<IntegrationSyncEvent, { type: IntegrationAnswerEventType }>;
