import { INTEGRATION_LABELS } from '../../models/integrations';
import type { IntegrationName } from '../../models/integrations';

/** Texts of the integration cards that the spec does not give word for word. */

/** The sync-complete toast (10 s). */
export const syncCompleteMessage = (name: IntegrationName): string =>
  `${INTEGRATION_LABELS[name]} is synced: your reports now include its data`;

/** 'Retry' could not start a sync. */
export const retryFailedMessage = (name: IntegrationName): string => `We could not start the ${INTEGRATION_LABELS[name]} sync, please try again`;

/** 'Disconnect' failed. */
export const disconnectFailedMessage = (name: IntegrationName): string => `We could not disconnect ${INTEGRATION_LABELS[name]}, please try again`;

/** The provider sent the user back without a connection (`?integration=stripe&status=failed`). */
export const oauthFailedMessage = (name: IntegrationName): string => `We could not connect to ${INTEGRATION_LABELS[name]}, please try again`;

/** A sync failed without saying why. */
export const SYNC_FAILED_FALLBACK = 'The last sync failed';
