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
   * Origin of the links in e-mails (`https://app.example.com`). Required in production; in
   * development undefined means the local origin the server listens on. Never the request's
   * Host header, which its sender chooses.
   */
  publicUrl: string | undefined;
  /**
   * Fastify's trustProxy, from TRUST_PROXY: whose X-Forwarded-For (and -Host, -Proto) to believe,
   * which decides `request.ip` (the sign-in throttle counts by it). Unset/`false`: nobody's, the
   * connecting address is the client. `true`: one hop, the connecting peer (the one reverse proxy
   * in front; the client is the address it appended last). A number N: N hops. Else a
   * comma-separated list of the proxies' addresses/CIDRs (or `loopback`, `linklocal`,
   * `uniquelocal`): trusted while they are the hop. Never "every hop": that makes `request.ip`
   * the left-most X-Forwarded-For entry, which the client chooses.
   */
  trustProxy: boolean | string | ((address: string, hop: number) => boolean);
  /** SMTP connection URL for nodemailer; undefined writes e-mails to the outbox table instead. */
  smtpUrl: string | undefined;
  /** The From address of outgoing e-mail. */
  mailFrom: string;
  production: boolean;
  logLevel: string;
  demoEmail: string;
  /** DEMO_PASSWORD when set; otherwise chosen at boot (server/demo/password.ts). */
  demoPassword: string | undefined;
  /**
   * The development outbox route (`/api/v11/dev/outbox`, it hands out reset and invitation
   * links): only when SUBSCOPE_DEV_OUTBOX=true, never in production, and only to loopback clients.
   */
  devOutbox: boolean;
  /** Multiplies every rate limit (server/http/rateLimits.ts); RATE_LIMIT_SCALE, default 1. */
  rateLimitScale: number;
  /** Seed the demo account into an empty database. */
  seedDemo: boolean;
  /** Run job workers inside the HTTP process. */
  workers: boolean;
  /** Where the daily job fetches ECB reference rates; undefined when set to 'off'. */
  ecbFeedUrl: string | undefined;
  /** Test-only routes (seeding, slow writes) for e2e and shutdown tests; never in production. */
  testRoutes: boolean;
  /**
   * The 32-byte key that encrypts integration credentials at rest (AES-256-GCM,
   * server/integrations/secrets.ts): INTEGRATION_SECRETS_KEY (base64, 32 bytes) or, when unset, one
   * generated and kept in DATA_DIR like the JWT secret.
   */
  integrationSecretsKey: Buffer;
  /** Where each provider's API is reached (docs/integrations.md); tests and the local fakes point them elsewhere. */
  providerUrls: ProviderUrls;
  /**
   * This product's OAuth clients at the providers that connect by OAuth (STRIPE_CLIENT_ID and
   * STRIPE_SECRET_KEY, HUBSPOT_CLIENT_ID and HUBSPOT_CLIENT_SECRET, INTERCOM_CLIENT_ID and
   * INTERCOM_CLIENT_SECRET); a provider without one cannot be connected (its card says so).
   */
  oauthClients: Partial<Record<'stripe' | 'hubspot' | 'intercom', { clientId: string; clientSecret: string }>>;
  /** STRIPE_WEBHOOK_SECRET: the signing secret of the platform's Connect webhook endpoint (`whsec_…`). */
  stripeWebhookSecret: string | undefined;
}

function parseOauthClients(env: NodeJS.ProcessEnv): Config['oauthClients'] {
  const clients: Config['oauthClients'] = {};
  const pairs = { stripe: ['STRIPE_CLIENT_ID', 'STRIPE_SECRET_KEY'], hubspot: ['HUBSPOT_CLIENT_ID', 'HUBSPOT_CLIENT_SECRET'], intercom: ['INTERCOM_CLIENT_ID', 'INTERCOM_CLIENT_SECRET'] } as const;
  for (const [provider, [idName, secretName]] of Object.entries(pairs) as [keyof typeof pairs, readonly [string, string]][]) {
    const clientId = env[idName];
    const clientSecret = env[secretName];
    if (clientId && clientSecret) clients[provider] = { clientId, clientSecret };
    else if (clientId || clientSecret) throw new Error(`${idName} and ${secretName} are set together`);
  }
  return clients;
}

/**
 * The providers' API origins. `{site}` / `{subdomain}` stand for the account's own Chargebee site and
 * Fakturownia subdomain. Each can be set by environment (STRIPE_API_URL, ...), so the product talks
 * to the local fake servers (npm run fakes) or a provider's sandbox.
 */
export interface ProviderUrls {
  stripeApi: string;
  stripeConnect: string;
  chargebee: string;
  hubspotApi: string;
  hubspotAuthorize: string;
  intercomApi: string;
  intercomAuthorize: string;
  fakturownia: string;
  wfirma: string;
}

export const DEFAULT_PROVIDER_URLS: ProviderUrls = {
  stripeApi: 'https://api.stripe.com',
  stripeConnect: 'https://connect.stripe.com',
  chargebee: 'https://{site}.chargebee.com',
  hubspotApi: 'https://api.hubapi.com',
  hubspotAuthorize: 'https://app.hubspot.com',
  intercomApi: 'https://api.intercom.io',
  intercomAuthorize: 'https://app.intercom.com',
  fakturownia: 'https://{subdomain}.fakturownia.pl',
  wfirma: 'https://api2.wfirma.pl',
};

const PROVIDER_URL_ENV: Record<keyof ProviderUrls, string> = {
  stripeApi: 'STRIPE_API_URL',
  stripeConnect: 'STRIPE_CONNECT_URL',
  chargebee: 'CHARGEBEE_API_URL',
  hubspotApi: 'HUBSPOT_API_URL',
  hubspotAuthorize: 'HUBSPOT_AUTHORIZE_URL',
  intercomApi: 'INTERCOM_API_URL',
  intercomAuthorize: 'INTERCOM_AUTHORIZE_URL',
  fakturownia: 'FAKTUROWNIA_API_URL',
  wfirma: 'WFIRMA_API_URL',
};

export function parseProviderUrls(env: NodeJS.ProcessEnv): ProviderUrls {
  const urls = { ...DEFAULT_PROVIDER_URLS };
  for (const key of Object.keys(PROVIDER_URL_ENV) as (keyof ProviderUrls)[]) {
    const value = env[PROVIDER_URL_ENV[key]];
    if (!value) continue;
    let parsed: URL;
    try {
      parsed = new URL(value.replace('{site}', 'site').replace('{subdomain}', 'subdomain'));
    } catch {
      throw new Error(`${PROVIDER_URL_ENV[key]} must be an http(s) URL, got '${value}'`);
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new Error(`${PROVIDER_URL_ENV[key]} must be an http(s) URL, got '${value}'`);
    urls[key] = value.replace(/\/+$/, '');
  }
  return urls;
}

const INTEGRATION_SECRETS_KEY_FILE = 'integration-secrets-key';

/** INTEGRATION_SECRETS_KEY (base64 of 32 bytes), else a key generated once and kept in DATA_DIR. */
function resolveIntegrationSecretsKey(env: NodeJS.ProcessEnv, dataDir: string): Buffer {
  if (env.INTEGRATION_SECRETS_KEY) {
    const key = Buffer.from(env.INTEGRATION_SECRETS_KEY, 'base64');
    if (key.length !== 32) throw new Error('INTEGRATION_SECRETS_KEY must be 32 bytes, base64-encoded');
    return key;
  }
  const file = path.join(dataDir, INTEGRATION_SECRETS_KEY_FILE);
  if (existsSync(file)) return Buffer.from(readFileSync(file, 'utf8').trim(), 'base64');
  mkdirSync(dataDir, { recursive: true });
  const key = randomBytes(32);
  writeFileSync(file, key.toString('base64') + '\n', { mode: 0o600 });
  return key;
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

function parseScale(value: string | undefined): number {
  if (value === undefined || value === '') return 1;
  const scale = Number(value);
  if (!Number.isFinite(scale) || scale < 1) throw new Error(`RATE_LIMIT_SCALE must be a number of at least 1, got '${value}'`);
  return scale;
}

function parseTrustProxy(value: string | undefined): false | string | ((address: string, hop: number) => boolean) {
  const text = value?.trim() ?? '';
  if (!text || text === 'false' || text === '0') return false;
  // Fastify 5 ignores X-Forwarded-For altogether for a numeric trustProxy: hops are counted here.
  const hops = text === 'true' ? 1 : /^\d+$/.test(text) ? Number(text) : undefined;
  if (hops !== undefined) return (_address, hop) => hop < hops;
  const proxies = text
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  if (proxies.length === 0) throw new Error(`TRUST_PROXY must be true, false, a number of hops or the proxies' addresses/CIDRs, got '${value}'`);
  return proxies.join(',');
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const dataDir = path.resolve(env.DATA_DIR || 'data');
  const production = env.NODE_ENV === 'production';
  const publicUrl = parsePublicUrl(env.PUBLIC_URL);
  if (production && !publicUrl) {
    throw new Error('PUBLIC_URL must be set in production (the origin of the links in e-mails, e.g. https://subscope.example.com)');
  }
  return {
    port: parsePort(env.PORT, 3000),
    host: env.HOST || '127.0.0.1',
    dataDir,
    databaseUrl: env.DATABASE_URL || undefined,
    jwtSecret: resolveJwtSecret(env, dataDir),
    jwtTtlSeconds: ACCESS_TOKEN_TTL_SECONDS,
    publicUrl,
    trustProxy: parseTrustProxy(env.TRUST_PROXY),
    smtpUrl: env.SMTP_URL || undefined,
    mailFrom: env.MAIL_FROM || 'Subscope <no-reply@subscope.dev>',
    production,
    logLevel: env.LOG_LEVEL || (env.NODE_ENV === 'test' ? 'warn' : 'info'),
    demoEmail: env.DEMO_EMAIL || 'demo@subscope.dev',
    demoPassword: env.DEMO_PASSWORD || undefined,
    devOutbox: env.SUBSCOPE_DEV_OUTBOX === 'true' && !production,
    rateLimitScale: parseScale(env.RATE_LIMIT_SCALE),
    seedDemo: env.SEED_DEMO !== 'false',
    workers: env.WORKERS !== 'false',
    testRoutes: env.SUBSCOPE_TEST_ROUTES === 'true' && env.NODE_ENV !== 'production',
    ecbFeedUrl: env.ECB_FEED_URL === 'off' ? undefined : env.ECB_FEED_URL || ECB_FEED_DEFAULT_URL,
    integrationSecretsKey: resolveIntegrationSecretsKey(env, dataDir),
    providerUrls: parseProviderUrls(env),
    oauthClients: parseOauthClients(env),
    stripeWebhookSecret: env.STRIPE_WEBHOOK_SECRET || undefined,
  };
}
