import { startFakeChargebee } from './chargebee';
import { startFakeFakturownia } from './fakturownia';
import { startFakeStripe } from './stripe';
import type { FakeProvider } from './types';

/**
 * Every provider fake at once (e2e's global setup and `npm run fakes`), with the environment
 * that points the product at them: its API URLs (Chargebee's and Fakturownia's as templates whose
 * first path segment is the site or subdomain) and the credentials the fakes accept.
 */
export interface RunningFakes {
  chargebee: FakeProvider;
  fakturownia: FakeProvider;
  stripe: FakeProvider;
  /** What the product's process needs in its environment. */
  env: Record<string, string>;
  close(): Promise<void>;
}

export async function startAllFakes(): Promise<RunningFakes> {
  const [chargebee, fakturownia, stripe] = await Promise.all([startFakeChargebee(), startFakeFakturownia(), startFakeStripe()]);
  return {
    chargebee,
    fakturownia,
    stripe,
    env: {
      CHARGEBEE_API_URL: `${chargebee.url}/{site}`,
      FAKTUROWNIA_API_URL: `${fakturownia.url}/{subdomain}`,
      STRIPE_API_URL: stripe.url,
      STRIPE_CONNECT_URL: stripe.url,
      STRIPE_CLIENT_ID: 'ca_test',
      STRIPE_SECRET_KEY: 'sk_test_fake',
      STRIPE_WEBHOOK_SECRET: 'whsec_test_fake',
    },
    close: async () => {
      await Promise.all([chargebee.close(), fakturownia.close(), stripe.close()]);
    },
  };
}
