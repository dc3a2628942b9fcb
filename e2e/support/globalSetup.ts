import path from 'node:path';
import { ensureSpaBuild } from '../../server/build/ensureSpaBuild';
import { startAllFakes } from '../../tests/fakes/all';

/**
 * What every Playwright worker shares: the providers' fakes (Chargebee, Fakturownia, Stripe, …)
 * and the production build of the SPA, made once here so the workers' servers do not build it
 * side by side. Each worker then starts its own server (e2e/support/test.ts) on a fresh data
 * directory, so workers never wait on each other's imports in one embedded database. Specs reach
 * the fakes' controls at E2E_FAKE_{CHARGEBEE,FAKTUROWNIA,HUBSPOT,INTERCOM,STRIPE,WFIRMA}_URL
 * (`POST {url}/__fake/...`); E2E_FAKES_ENV carries the environment that points a server at them.
 */
export default async function globalSetup(): Promise<() => Promise<void>> {
  ensureSpaBuild(path.resolve(import.meta.dirname, '../..'), (message) => console.log(message));
  const fakes = await startAllFakes();
  process.env.E2E_FAKE_CHARGEBEE_URL = fakes.chargebee.url;
  process.env.E2E_FAKE_FAKTUROWNIA_URL = fakes.fakturownia.url;
  process.env.E2E_FAKE_STRIPE_URL = fakes.stripe.url;
  process.env.E2E_FAKE_HUBSPOT_URL = fakes.hubspot.url;
  process.env.E2E_FAKE_INTERCOM_URL = fakes.intercom.url;
  process.env.E2E_FAKE_WFIRMA_URL = fakes.wfirma.url;
  process.env.E2E_FAKES_ENV = JSON.stringify(fakes.env);
  return async () => {
    await fakes.close();
  };
}
