import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ECB_FEED_DEFAULT_URL } from './rates/ecbFeed';

/** Everything the process reads from its environment, parsed once at start. */
export interface Config {
  port: number;
  host: string;
  dataDir: string;
  databaseUrl: string | undefined;
  jwtSecret: string;
  smtpUrl: string | undefined;
  production: boolean;
  logLevel: string;
  demoEmail: string;
  demoPassword: string;
  /** Seed the demo account into an empty database. */
  seedDemo: boolean;
  /** Run job workers inside the HTTP process. */
  workers: boolean;
  /** Where the daily job fetches ECB reference rates; undefined when set to 'off'. */
  ecbFeedUrl: string | undefined;
  /** Test-only routes (seeding, slow writes) for e2e and shutdown tests; never in production. */
  testRoutes: boolean;
}

const JWT_SECRET_FILE = 'jwt-secret';

/**
 * The JWT secret comes from the environment; when absent, one is generated (256 random bits)
 * and kept in DATA_DIR so tokens survive a restart.
 */
function resolveJwtSecret(env: NodeJS.ProcessEnv, dataDir: string): string {
  if (env.JWT_SECRET) {
    if (env.JWT_SECRET.length < 32) throw new Error('JWT_SECRET must be at least 32 characters long');
    return env.JWT_SECRET;
  }
  const file = path.join(dataDir, JWT_SECRET_FILE);
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  mkdirSync(dataDir, { recursive: true });
  const secret = randomBytes(32).toString('base64url');
  writeFileSync(file, secret + '\n', { mode: 0o600 });
  return secret;
}

function parsePort(value: string | undefined, fallback: number): number {
  if (value === undefined || value === '') return fallback;
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`PORT must be a port number, got '${value}'`);
  return port;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const dataDir = path.resolve(env.DATA_DIR || 'data');
  return {
    port: parsePort(env.PORT, 3000),
    host: env.HOST || '0.0.0.0',
    dataDir,
    databaseUrl: env.DATABASE_URL || undefined,
    jwtSecret: resolveJwtSecret(env, dataDir),
    smtpUrl: env.SMTP_URL || undefined,
    production: env.NODE_ENV === 'production',
    logLevel: env.LOG_LEVEL || (env.NODE_ENV === 'test' ? 'warn' : 'info'),
    demoEmail: env.DEMO_EMAIL || 'demo@subscope.dev',
    demoPassword: env.DEMO_PASSWORD || 'subscope-demo-2026',
    seedDemo: env.SEED_DEMO !== 'false',
    workers: env.WORKERS !== 'false',
    testRoutes: env.SUBSCOPE_TEST_ROUTES === 'true' && env.NODE_ENV !== 'production',
    ecbFeedUrl: env.ECB_FEED_URL === 'off' ? undefined : env.ECB_FEED_URL || ECB_FEED_DEFAULT_URL,
  };
}
