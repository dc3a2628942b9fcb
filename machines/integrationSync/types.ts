import type { IntegrationAnswer, IntegrationName } from '../../models/integrations';

/**
 * One integration card's data: why a call of the card failed, and the machine's context and
 * events. What the server answers about an integration (`IntegrationAnswer`) is in
 * models/integrations.ts, shared with the server.
 */

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
