import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import react from '@vitejs/plugin-react';

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
