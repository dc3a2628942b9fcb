import { test as base, expect } from '@playwright/test';
import { removeDataDir, startServer } from './server';

/**
 * Every spec imports `test` from here: baseURL is the server of this Playwright worker, started
 * once per worker as `npm start` does (embedded PGlite on a fresh data directory, demo seed),
 * pointed at the providers' fakes the global setup started, and stopped gracefully when the
 * worker ends (a server that does not exit cleanly fails the run).
 */
export const test = base.extend<object, { workerServerUrl: string }>({
  workerServerUrl: [
    // eslint-disable-next-line no-empty-pattern -- Playwright reads the fixture arguments from the pattern
    async ({}, use) => {
      const fakesEnv = JSON.parse(process.env.E2E_FAKES_ENV ?? 'null') as Record<string, string> | null;
      if (!fakesEnv) throw new Error('E2E_FAKES_ENV is not set: run through `npm run test:e2e` (the global setup starts the fakes)');
      // Short provider retry waits: a spec that makes a fake refuse calls does not wait seconds for each.
      const server = await startServer({ env: { ...fakesEnv, PROVIDER_RETRY_BASE_MS: '50', SKIP_SPA_BUILD: 'true' }, timeoutMs: 300_000 });
      let code: number | null;
      try {
        await use(server.url);
      } finally {
        code = await server.stop('SIGTERM');
        removeDataDir(server.dataDir);
      }
      if (code !== 0) throw new Error(`the server did not stop cleanly (exit ${String(code)}):\n${server.output()}`);
    },
    { scope: 'worker', timeout: 300_000 },
  ],
  baseURL: async ({ workerServerUrl }, use) => {
    await use(workerServerUrl);
  },
});
export { expect };
