import { defineConfig, devices } from '@playwright/test';

/**
 * E2E against the real product: the global setup builds the SPA and starts the providers' fakes;
 * each worker runs `npm start` on a temporary DATA_DIR and a free port (production build, embedded
 * PGlite, demo seed: e2e/support/test.ts), and tests drive Debian's Chromium. One worker by default:
 * with two (E2E_WORKERS=2, each against its own server) the calculated-column spec's save took over
 * 15 s on CI's two cores, and the run was no faster. The tests of one file run in order in one worker.
 */
export default defineConfig({
  testDir: 'e2e',
  testMatch: '**/*.spec.ts',
  fullyParallel: false,
  workers: Number(process.env.E2E_WORKERS ?? 1),
  retries: 0,
  // Generous, for a loaded 2-core machine: several tests wait on the server's one PGlite session
  // behind an import or a recalculation. A hung test still fails, at a minute.
  timeout: 60_000,
  expect: { timeout: 15_000 },
  forbidOnly: !!process.env.CI,
  reporter: process.env.PW_JSON_REPORT ? [['list'], ['json', { outputFile: process.env.PW_JSON_REPORT }]] : [['list']],
  globalSetup: './e2e/support/globalSetup.ts',
  use: {
    // As a visitor who asked their system for less motion: charts draw at once (src/reports/charts/motion.ts),
    // which spares every chart a second of animation frames on CI's two cores.
    contextOptions: { reducedMotion: 'reduce' },
    // A trace records a screencast and DOM snapshots of every test as it runs, kept only if the
    // test fails; in CI (CI=true) nobody opens it afterwards, and recording it cost Chromium's GPU and
    // browser processes a tenth to a quarter of the run's CPU on two cores. Off there; on locally.
    trace: process.env.CI ? 'off' : 'retain-on-failure',
    screenshot: 'only-on-failure',
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    },
  },
  projects: [{ name: 'chromium', use: { ...devices['Desktop Chrome'], channel: undefined } }],
});
