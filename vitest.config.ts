import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import react from '@vitejs/plugin-react';

/**
 * Server test files that never open a database: the metrics engine over in-memory snapshots,
 * the demo generator, pure parsers and the engine-only benchmark smoke. The PostgreSQL pass of
 * CI (DATABASE_URL set: `.ci/run`) leaves them out, since they would run exactly as in the
 * PGlite pass (about a minute and a half of CI time).
 */
const DATABASE_FREE_SERVER_TESTS = [
  'tests/server/metrics/scale.test.ts',
  'tests/server/metrics/catalogue.scale.test.ts',
  'tests/server/metrics/properties.test.ts',
  'tests/server/metrics/details.properties.test.ts',
  'tests/server/metrics/duckdb/parity.test.ts',
  'tests/server/reports/benchFilterSmoke.test.ts',
  'tests/server/imports/paymentIdFilter.test.ts',
  'tests/server/demo/generate.test.ts',
];

export default defineConfig({
  test: {
    // Vitest's default is one worker per core but one: a single worker on a 2-core machine, where
    // most test files spend their time waiting (timers, child processes, the database), so files
    // ran one at a time. Two workers there took the suite from 500-730 s to about 410 s.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    projects: [
      { test: { name: 'models', include: ['tests/models/**/*.test.ts'], environment: 'node' } },
      { test: { name: 'machines', include: ['tests/machines/**/*.test.ts'], environment: 'node' } },
      { test: { name: 'architecture', include: ['tests/architecture/**/*.test.ts'], environment: 'node' } },
      {
        test: {
          name: 'server',
          include: ['tests/server/**/*.test.ts'],
          exclude: process.env.DATABASE_URL ? DATABASE_FREE_SERVER_TESTS : [],
          environment: 'node',
          testTimeout: 60_000,
          hookTimeout: 60_000,
          pool: 'forks',
        },
      },
      {
        plugins: [react()],
        test: {
          name: 'src',
          include: ['tests/src/**/*.test.{ts,tsx}'],
          environment: 'jsdom',
          setupFiles: ['tests/src/setup.ts'],
          testTimeout: 20_000,
        },
      },
    ],
  },
});
