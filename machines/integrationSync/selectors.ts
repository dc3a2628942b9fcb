import { CONFIGURATION_NEEDED, CONNECTED, syncInProgress } from '../../models/integrations';
import type { IntegrationSyncSnapshot } from './integrationSyncMachine';
import type { IntegrationSaveFailure } from './types';

/** What an integration card reads of its machine. */

/**
 * The card's state: `loading` (no answer yet), the spec's three (configuration needed, sync in
 * progress, connected), `failed` (the last sync failed, with Retry), and the short-lived
 * `disconnecting`. While the dialog is open or being saved the card keeps the state the
 * server last gave.
 */
export type IntegrationCardPhase = 'loading' | 'configurationNeeded' | 'syncing' | 'connected' | 'failed' | 'disconnecting';

export function selectPhase(snapshot: IntegrationSyncSnapshot): IntegrationCardPhase {
  if (snapshot.matches('loading')) return 'loading';
  if (snapshot.matches('syncing')) return 'syncing';
  if (snapshot.matches('connected')) return 'connected';
  if (snapshot.matches('failed')) return 'failed';
  if (snapshot.matches('disconnecting')) return 'disconnecting';
  if (snapshot.matches('configurationNeeded')) return 'configurationNeeded';
  // configuring, connecting: what the server said last.
  const integration = snapshot.context.integration;
  if (integration?.configured && integration.sync_status === 'failed') return 'failed';
  if (integration?.configured) return integration.initially_synced ? 'connected' : 'syncing';
  return 'configurationNeeded';
}

/** The first sync's percent, 0-100, whole. */
export function selectPercent(snapshot: IntegrationSyncSnapshot): number {
  return Math.round(snapshot.context.percent);
}

/** The card's status words: 'Configuration needed', 'Sync in progress (N%)', 'Connected'; 'Sync failed'; null while loading. */
export function selectStatusLabel(snapshot: IntegrationSyncSnapshot): string | null {
  switch (selectPhase(snapshot)) {
    case 'configurationNeeded':
      return CONFIGURATION_NEEDED;
    case 'syncing':
      return syncInProgress(selectPercent(snapshot));
    case 'connected':
      return CONNECTED;
    case 'failed':
      return 'Sync failed';
    case 'disconnecting':
      return 'Disconnecting';
    default:
      return null;
  }
}

/** The configuration dialog is open (also while its save is in flight). */
export function selectDialogOpen(snapshot: IntegrationSyncSnapshot): boolean {
  return snapshot.matches('configuring') || snapshot.matches({ connecting: 'saving' });
}

/** The dialog's save is in flight. */
export function selectSaving(snapshot: IntegrationSyncSnapshot): boolean {
  return snapshot.matches({ connecting: 'saving' });
}

/** Why the last save was refused (shown in the dialog). */
export function selectSaveFailure(snapshot: IntegrationSyncSnapshot): IntegrationSaveFailure | null {
  return snapshot.matches('configuring') ? snapshot.context.saveFailure : null;
}

/** The browser is on its way to the provider. */
export function selectRedirecting(snapshot: IntegrationSyncSnapshot): boolean {
  return snapshot.matches({ connecting: 'redirecting' });
}

/** Why the last sync failed (a failed card). */
export function selectError(snapshot: IntegrationSyncSnapshot): string | null {
  return selectPhase(snapshot) === 'failed' ? snapshot.context.error : null;
}

/** A Retry is in flight. */
export function selectRetrying(snapshot: IntegrationSyncSnapshot): boolean {
  return snapshot.matches({ failed: 'retrying' });
}

/** ISO date-time of the end of the last successful sync. */
export function selectLastSyncedAt(snapshot: IntegrationSyncSnapshot): string | null {
  return snapshot.context.integration?.last_synced_at ?? null;
}

/** Non-secret settings of a saved configuration (the dialog starts from them). */
export function selectConfig(snapshot: IntegrationSyncSnapshot): Record<string, unknown> {
  return snapshot.context.integration?.config ?? {};
}
