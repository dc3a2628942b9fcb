import { readdirSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { defineConfig } from 'vitest/config';
import react from '@vitejs/plugin-react';

/**
 * Server test files the PostgreSQL pass of CI (DATABASE_URL set: `.ci/run`) leaves out, since
 * they would run exactly as in the PGlite pass: files that never open a database (the metrics
 * engine over in-memory snapshots, the demo generator, pure parsers, the engine-only benchmark
 * smoke), then the engine-independent ones below.
 */
const DATABASE_FREE_SERVER_TESTS = [
  'tests/server/metrics/scale.test.ts',
  'tests/server/metrics/catalogue.scale.test.ts',
  'tests/server/metrics/properties.test.ts',
  'tests/server/metrics/details.properties.test.ts',
  'tests/server/metrics/duckdb/parity.test.ts',
  'tests/server/metrics/duckdb/customParity.test.ts',
  'tests/server/reports/benchFilterSmoke.test.ts',
  'tests/server/imports/paymentIdFilter.test.ts',
  'tests/server/imports/subscriptionRows.test.ts',
  'tests/server/metrics/paymentPeriods.test.ts',
  'tests/server/demo/generate.test.ts',
  // Renders the API contract from a server on embedded PGlite whatever DATABASE_URL says.
  'tests/server/contract.test.ts',
  // Engine-independent, so run once (in the PGlite pass), for CI time: the bad-input suite (its
  // subject is the HTTP layer's answers to odd shapes; the same SQL rejects the same bytes on both
  // engines) and the benchmark smokes (they keep the benchmark scripts from rotting; the scripts
  // take either engine by flag).
  'tests/server/attack/robustness.test.ts',
  'tests/server/reports/benchSmoke.test.ts',
  'tests/server/metrics/duckdb/benchSmoke.test.ts',
  'tests/server/customers/benchCustomersSmoke.test.ts',
  'tests/server/integrations/benchSyncSmoke.test.ts',
  // Answers of the HTTP layer (security headers, body limits, rate limits, links in e-mails, the
  // password rules, the validation messages the form and the server share) and the id and secret
  // generator: the same whichever engine holds the rows.
  'tests/server/security/hardening.test.ts',
  'tests/server/auth/passwordPolicy.test.ts',
  'tests/server/auth/sharedRules.test.ts',
  'tests/server/auth/secrets.test.ts',
  // The tenant isolation suite: another account's ids answer 404 because every query is scoped
  // by account_id in its SQL, which both engines (PGlite is PostgreSQL) run alike; about 50 s of
  // the PostgreSQL pass. It runs in the PGlite pass on every endpoint.
  'tests/server/attack/tenantIsolation.test.ts',
];

/**
 * View tests (jsdom) that replace a module with `vi.mock`: they run isolated, each file with its
 * own module graph. The rest share one module graph per worker (`isolate: false`), which spares
 * every file the import of React, Mantine and the app (that import was most of the project's
 * time: about 4 of its 15 minutes of CPU). A file that mocks a module is found by its text, so a
 * new one lands in the right project on its own.
 */
const VIEW_TESTS = 'tests/src';
const viewTestFiles = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) return viewTestFiles(file);
    return /\.test\.tsx?$/.test(entry.name) ? [file] : [];
  });
const MOCKING_VIEW_TESTS = viewTestFiles(VIEW_TESTS).filter((file) => /\bvi\.(?:mock|doMock)\(/.test(readFileSync(file, 'utf8')));

const viewProject = (name: string, isolated: boolean) => ({
  plugins: [react()],
  test: {
    name,
    include: isolated ? MOCKING_VIEW_TESTS : [`${VIEW_TESTS}/**/*.test.{ts,tsx}`],
    exclude: isolated ? [] : MOCKING_VIEW_TESTS,
    isolate: isolated,
    environment: 'jsdom' as const,
    // The shared project loads every lazily loaded module first (why: tests/src/preloadPages.ts).
    // Not the isolated one: its files mock modules, which a preload would load unmocked.
    setupFiles: isolated ? ['tests/src/setup.ts'] : ['tests/src/setup.ts', 'tests/src/preloadPages.ts'],
    // Forms typed key by key in jsdom take seconds; on a loaded 2-core machine several times that.
    // A hung test still fails, at a minute.
    testTimeout: 60_000,
  },
});

export default defineConfig({
  test: {
    // Vitest's default is one worker per core but one: a single worker on a 2-core machine, where
    // most test files spend their time waiting (timers, child processes, the database), so files
    // ran one at a time. Two workers there took the suite from 500-730 s to about 410 s.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    projects: [
      { test: { name: 'models', include: ['tests/models/**/*.test.ts'], environment: 'node' } },
      // Path generation over a machine's whole graph takes seconds; on a loaded 2-core machine several
      // times that, past vitest's 5 s default. A hung test still fails, at a minute.
      { test: { name: 'machines', include: ['tests/machines/**/*.test.ts'], environment: 'node', testTimeout: 60_000 } },
      { test: { name: 'architecture', include: ['tests/architecture/**/*.test.ts'], environment: 'node' } },
      {
        test: {
          name: 'server',
          include: ['tests/server/**/*.test.ts'],
          exclude: process.env.DATABASE_URL ? DATABASE_FREE_SERVER_TESTS : [],
          environment: 'node',
          setupFiles: ['tests/server/setup.ts'],
          testTimeout: 60_000,
          hookTimeout: 60_000,
          pool: 'forks',
          // One module graph per worker, shared by its files (no server test mocks a module; each
          // makes its own app and database): the files' imports were minutes of CI, and the
          // project's files took 1,174 s instead of 1,618 s of worker time.
          isolate: false,
        },
      },
      viewProject('src', true),
      viewProject('src-shared', false),
    ],
  },
});
