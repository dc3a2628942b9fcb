import { startAllFakes } from '../../tests/fakes/all';
import { removeDataDir, startServer } from './server';

/**
 * One server for the whole run, on a fresh data directory, talking to the providers' fakes
 * (Chargebee, Fakturownia, Stripe), which start first; torn down gracefully at the end. Specs
 * reach the fakes' controls at E2E_FAKE_CHARGEBEE_URL, E2E_FAKE_FAKTUROWNIA_URL and
 * E2E_FAKE_STRIPE_URL (`POST {url}/__fake/...`).
 */
export default async function globalSetup(): Promise<() => Promise<void>> {
  const fakes = await startAllFakes();
  process.env.E2E_FAKE_CHARGEBEE_URL = fakes.chargebee.url;
  process.env.E2E_FAKE_FAKTUROWNIA_URL = fakes.fakturownia.url;
  process.env.E2E_FAKE_STRIPE_URL = fakes.stripe.url;
  let server: Awaited<ReturnType<typeof startServer>>;
  try {
    // Short provider retry waits: a spec that makes a fake refuse calls does not wait seconds for each.
    server = await startServer({ env: { ...fakes.env, PROVIDER_RETRY_BASE_MS: '50' }, timeoutMs: 300_000 });
  } catch (error) {
    await fakes.close();
    throw error;
  }
  process.env.E2E_BASE_URL = server.url;
  return async () => {
    const code = await server.stop('SIGTERM');
    removeDataDir(server.dataDir);
    await fakes.close();
    if (code !== 0) throw new Error(`the server did not stop cleanly (exit ${String(code)}):\n${server.output()}`);
  };
}
