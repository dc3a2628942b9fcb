import type { IntegrationName } from '../db/schema';
import type { IntegrationProvider } from './types';
import { chargebeeProvider } from './providers/chargebee';
import { fakturowniaProvider } from './providers/fakturownia';
import { hubspotProvider } from './providers/hubspot';
import { intercomProvider } from './providers/intercom';
import { stripeProvider } from './providers/stripe';
import { wfirmaProvider } from './providers/wfirma';

/**
 * The data sources that can be connected. A card whose provider is not here yet (hubspot,
 * intercom, wfirma) is shown disabled; zendesk is in closed beta (a dialog with a contact link).
 */
export const PROVIDERS: Partial<Record<IntegrationName, IntegrationProvider>> = {
  stripe: stripeProvider,
  chargebee: chargebeeProvider,
  fakturownia: fakturowniaProvider,
  hubspot: hubspotProvider,
  intercom: intercomProvider,
  wfirma: wfirmaProvider,
};

/** Every card of the Data sources section, in the spec's order. */
export const INTEGRATION_NAMES: readonly IntegrationName[] = ['stripe', 'chargebee', 'intercom', 'zendesk', 'hubspot', 'fakturownia', 'wfirma'];
