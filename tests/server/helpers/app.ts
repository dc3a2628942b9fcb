import type { FastifyInstance } from 'fastify';
import { buildApp, type AppOptions } from '../../../server/app';
import { createTestDatabase, type TestDatabase } from './database';

export interface TestApp {
  app: FastifyInstance;
  db: TestDatabase;
  close(): Promise<void>;
}

export const TEST_CONFIG = { production: false, jwtSecret: 'test-secret-that-is-long-enough-to-sign-jwts', testRoutes: true, devOutbox: true, rateLimitScale: 100 } as const;

/** The real application on a fresh database, to be called with `app.inject`. */
export async function createTestApp(options: Partial<Omit<AppOptions, 'db'>> = {}): Promise<TestApp> {
  const db = await createTestDatabase();
  const app = await buildApp({ config: TEST_CONFIG, ...options, db });
  await app.ready();
  return {
    app,
    db,
    close: async () => {
      await app.close();
      await db.close();
    },
  };
}
