import type { IntegrationAnswerEvent } from './types';
import type { IntegrationAnswer } from '../../models/integrations';

/**
 * The machine's event for a server answer about the integration, named for what it says: a
 * configured integration whose last sync failed, one whose first sync is queued or running,
 * one initially synced (later syncs run behind it), or one not configured.
 */
export function answerEvent(integration: IntegrationAnswer): IntegrationAnswerEvent {
  if (!integration.configured) return { type: 'integration.answer.notConfigured', integration };
  if (integration.sync_status === 'failed') return { type: 'integration.answer.failed', integration };
  if (!integration.initially_synced) return { type: 'integration.answer.syncing', integration };
  return { type: 'integration.answer.synced', integration };
}
