import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ACCESS_TOKEN_TTL_SECONDS } from './auth/lifetimes';
import { ECB_FEED_DEFAULT_URL } from './rates/ecbFeed';

/** Everything the process reads from its environment, parsed once at start. */
export interface Config {
  port: number;
  host: string;
  dataDir: string;
  databaseUrl: string | undefined;
  jwtSecret: string;
  /** Lifetime of a sign-in token (JWT), in seconds; 24 h. */
  jwtTtlSeconds: number;
  /**
   * Origin of the links in e-mails (`https://app.example.com`); undefined uses the request's
   * own origin. Set it in production: a request's Host header is chosen by its sender.
   */
  publicUrl: string | undefined;
  /** Fastify's trustProxy: false (default), true, or the proxies' addresses/CIDRs from TRUST_PROXY. */
  trustProxy: boolean | string;
  /** SMTP connection URL for nodemailer; undefined writes e-mails to the outbox table instead. */
  smtpUrl: string | undefined;
  /** The From address of outgoing e-mail. */
  mailFrom: string;
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

function parsePublicUrl(value: string | undefined): string | undefined {
  if (!value) return undefined;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new Error(`PUBLIC_URL must be an absolute URL, got '${value}'`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`PUBLIC_URL must be an http(s) URL, got '${value}'`);
  return value.replace(/\/+$/, '');
}

function parsePort(value: string | undefined, fallback: number): number {
  if (value === undefined || value === '') return fallback;
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`PORT must be a port number, got '${value}'`);
  return port;
}

function parseTrustProxy(value: string | undefined): boolean | string {
  if (!value || value === 'false') return false;
  return value === 'true' ? true : value;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const dataDir = path.resolve(env.DATA_DIR || 'data');
  return {
    port: parsePort(env.PORT, 3000),
    host: env.HOST || '0.0.0.0',
    dataDir,
    databaseUrl: env.DATABASE_URL || undefined,
    jwtSecret: resolveJwtSecret(env, dataDir),
    jwtTtlSeconds: ACCESS_TOKEN_TTL_SECONDS,
    publicUrl: parsePublicUrl(env.PUBLIC_URL),
    trustProxy: parseTrustProxy(env.TRUST_PROXY),
    smtpUrl: env.SMTP_URL || undefined,
    mailFrom: env.MAIL_FROM || 'Subscope <no-reply@subscope.dev>',
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
