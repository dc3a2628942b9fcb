import { startFakeChargebee } from './chargebee';
import { startFakeFakturownia } from './fakturownia';
import { HUBSPOT_CLIENT_ID, HUBSPOT_CLIENT_SECRET, startFakeHubspot } from './hubspot';
import { INTERCOM_CLIENT_ID, INTERCOM_CLIENT_SECRET, startFakeIntercom } from './intercom';
import { startFakeStripe } from './stripe';
import type { FakeProvider } from './types';
import { startFakeWfirma } from './wfirma';

/**
 * Every provider fake at once (e2e's global setup and `npm run fakes`), with the environment
 * that points the product at them: its API URLs (Chargebee's and Fakturownia's as templates whose
 * first path segment is the site or subdomain), the OAuth clients the HubSpot and Intercom fakes
 * know, and the Stripe Connect client and webhook secret.
 */
export interface RunningFakes {
  chargebee: FakeProvider;
  fakturownia: FakeProvider;
  hubspot: FakeProvider;
  intercom: FakeProvider;
  stripe: FakeProvider;
  wfirma: FakeProvider;
  /** What the product's process needs in its environment. */
  env: Record<string, string>;
  close(): Promise<void>;
}

export async function startAllFakes(): Promise<RunningFakes> {
  const [chargebee, fakturownia, hubspot, intercom, stripe, wfirma] = await Promise.all([
    startFakeChargebee(),
    startFakeFakturownia(),
    startFakeHubspot(),
    startFakeIntercom(),
    startFakeStripe(),
    startFakeWfirma(),
  ]);
  return {
    chargebee,
    fakturownia,
    hubspot,
    intercom,
    stripe,
    wfirma,
    env: {
      CHARGEBEE_API_URL: `${chargebee.url}/{site}`,
      FAKTUROWNIA_API_URL: `${fakturownia.url}/{subdomain}`,
      HUBSPOT_API_URL: hubspot.url,
      HUBSPOT_AUTHORIZE_URL: hubspot.url,
      HUBSPOT_CLIENT_ID,
      HUBSPOT_CLIENT_SECRET,
      INTERCOM_API_URL: intercom.url,
      INTERCOM_AUTHORIZE_URL: intercom.url,
      INTERCOM_CLIENT_ID,
      INTERCOM_CLIENT_SECRET,
      STRIPE_API_URL: stripe.url,
      STRIPE_CONNECT_URL: stripe.url,
      STRIPE_CLIENT_ID: 'ca_test',
      STRIPE_SECRET_KEY: 'sk_test_fake',
      STRIPE_WEBHOOK_SECRET: 'whsec_test_fake',
      WFIRMA_API_URL: wfirma.url,
    },
    close: async () => {
      await Promise.all([chargebee, fakturownia, hubspot, intercom, stripe, wfirma].map((fake) => fake.close()));
    },
  };
}
