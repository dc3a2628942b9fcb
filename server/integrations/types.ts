import type { Kysely } from 'kysely';
import type { DB, IntegrationName, ItemType } from '../db/schema';
import type { JsonObject } from '../db/schema';
import type { ProviderUrls } from '../config';

/**
 * The contract between the integration runner (server/integrations/runner.ts: jobs, progress,
 * checkpoints, the sync log, channels) and each provider (server/integrations/providers/*.ts:
 * how one data source is read and what its objects become). A provider never writes to the
 * database itself: it hands batches to `commit`, which writes each batch and the provider's
 * cursor in one transaction, so a sync killed at any point resumes from the last committed
 * cursor and rewrites nothing twice (every row is keyed by its provider id).
 */

/** A problem with a configuration body: a pointer into the body and the spec's message. */
export interface ConfigProblem {
  pointer: string;
  detail: string;
}

/** What a provider keeps: `config` is shown back to the user (site, subdomain, attribute names); `secrets` are encrypted at rest and never leave the server. */
export interface ProviderConfig {
  config: JsonObject;
  secrets: Record<string, string>;
}

/** The provider refused the credentials or could not be reached: the configuration is not saved. */
export class CannotConnectError extends Error {
  constructor(
    /** The error code the client maps to the spec's message: cannot_connect_to_chargebee, cannot_connect_to_fakturownia, cannot_connect. */
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'CannotConnectError';
  }
}

/**
 * HTTP to a provider with the rules every provider needs: 429 and 5xx are retried with
 * exponential backoff (honouring `Retry-After`, seconds or an HTTP date), up to a limit, then a
 * `ProviderHttpError`; network errors likewise; the abort signal of the sync stops the wait.
 * SDKs that take a custom fetch or HTTP agent are given this one where they allow it.
 */
export type ProviderFetch = (url: string, init?: RequestInit) => Promise<Response>;

export class ProviderHttpError extends Error {
  constructor(
    readonly status: number,
    readonly body: string,
  ) {
    super(`provider answered ${status}: ${body.slice(0, 200)}`);
    this.name = 'ProviderHttpError';
  }
}

/** A customer as a provider has it; upserted by (account, public_id = the provider's customer id). */
export interface SyncCustomer {
  /** The provider's customer id (becomes customers.public_id). */
  externalId: string;
  name: string;
  /** Attribute values by attribute name (object 'customer'); created when missing. */
  attributes?: Record<string, string | null>;
}

/** A payment (METRICS.md section 1): upserted by (account, source, external_id); a change makes a new version. */
export interface SyncPayment {
  /** The provider's id of what this payment is (an invoice line, a subscription term). */
  externalId: string;
  /** SyncCustomer.externalId of its customer (in this batch or an earlier one). */
  customerExternalId: string;
  /** YYYY-MM-DD, first day of service. */
  startedAt: string;
  /** YYYY-MM-DD, first day after the service; null: open-ended (an active subscription with no end). */
  endedAt: string | null;
  /** Minor units of `currency` for the whole period; null when open-ended. */
  totalValue: number | null;
  /** Exact monthly amount in minor units (may have a fraction); required. */
  monthlyAmount: number;
  /** ISO 4217 code, upper case, as the provider bills it (kept; the engine converts). */
  currency: string;
  invoiceNumber: string | null;
  productKey: string;
  itemType: ItemType;
  quantity: number;
  discount: { kind: 'forever' | 'finite'; monthlyAmount: number; months: number | null; name: string | null } | null;
  /**
   * A period no invoice has paid yet (a subscription's current term), standing in for the
   * invoice: it never replaces a payment an invoice decided (stored with an invoice number, or
   * deleted), nor, in one batch, a payment that is not a stand-in.
   */
  standIn?: boolean;
}

/** An invoice line of an invoicing tool (Fakturownia, wFirma): becomes a payment through the import rules (distillers). */
export interface SyncInvoiceItem {
  /** The provider's id of the line (invoice id + position when it has none). */
  externalId: string;
  name: string;
  /** Minor units, gross value of the line. */
  value: number;
  currency: string;
  quantity: number;
  invoiceNumber: string | null;
  buyerName: string | null;
  buyerId: string | null;
  /** YYYY-MM-DD. */
  issueDate: string | null;
}

/** A CRM deal (HubSpot). */
export interface SyncDeal {
  externalId: string;
  name: string;
  value: number;
  currency: string;
  stage: string;
  stageChangedAt: string | null;
  ownerName: string | null;
  externalUrl: string | null;
  /** SyncCustomer.externalId of its customer, created (named by its id) when missing. */
  customerExternalId: string | null;
  /** The public id of an existing customer (HubSpot: the company's configured attribute): matched, never created; wins over customerExternalId. */
  customerPublicId?: string | null;
}

export interface SyncBatch {
  customers?: SyncCustomer[];
  payments?: SyncPayment[];
  /** External ids of payments the provider no longer has (deleted or voided): marked deleted. */
  deletedPayments?: string[];
  invoiceItems?: SyncInvoiceItem[];
  deals?: SyncDeal[];
  /** External ids of deals the provider archived or deleted (HubSpot): removed from the deals section. */
  deletedDeals?: string[];
  /** Attribute values for customers matched by their public id (Intercom: by the configured path). */
  customerAttributes?: { publicId: string; values: Record<string, string | null> }[];
}

export interface SyncContext {
  accountId: string;
  integration: IntegrationName;
  /** For reads only (a provider that needs to look something up); writes go through `commit`. */
  db: Kysely<DB>;
  config: JsonObject;
  secrets: Record<string, string>;
  urls: ProviderUrls;
  /** 'initial': the first full sync (progress in percent); 'incremental': changes since `since`. */
  mode: 'initial' | 'incremental';
  /** When the last successful sync started; null on the first one. */
  since: Date | null;
  /** The cursor of the last committed batch of this sync run (resume point), or null at its start. */
  cursor: JsonObject | null;
  fetch: ProviderFetch;
  /**
   * A valid OAuth access token of the connection (`secrets.access_token`): refreshed through the
   * provider's OAuth spec (OauthProviderSpec.refresh) when it expires within a minute
   * (`secrets.expires_at`, ms since epoch) or when `forceRefresh` (the provider answered 401);
   * the new tokens are stored sealed. A token without expiry (Stripe, Intercom) is returned as is;
   * a forced refresh that cannot be done throws ProviderHttpError 401.
   */
  accessToken(options?: { forceRefresh?: boolean }): Promise<string>;
  /**
   * Writes the batch and records `cursor` (and the initial sync's percent) in one transaction.
   * Call it after each page; a killed sync resumes at the last committed cursor.
   */
  commit(batch: SyncBatch, next: { cursor: JsonObject | null; progress?: number }): Promise<void>;
  /**
   * Optional, before `commit`: a provider that reads on while earlier batches are written may
   * hand a batch here as soon as it is complete (and will not change), so the writing's own work
   * on it (ids, the statement's columns) is done while the database still writes the batch before.
   */
  prepare?(batch: SyncBatch): void;
  /** A line in the integration's sync log (audit_log), shown to support beside the machine. */
  log(event: string, details?: JsonObject): Promise<void>;
  signal: AbortSignal;
}

export interface IntegrationProvider {
  name: IntegrationName;
  /** Whether the card opens a configuration dialog (intercom, hubspot, chargebee, fakturownia, wfirma). */
  configurable: boolean;
  /** 'oauth': connect by redirect to /users/auth/{provider}; 'dialog': a configuration dialog; 'closed_beta': zendesk. */
  connect: 'oauth' | 'dialog' | 'closed_beta';
  /**
   * An OAuth provider with a dialog too (`connect: 'oauth', configurable: true`: HubSpot,
   * Intercom): whether the held config still lacks the dialog's settings. While it does, the
   * tokens are held (`authorized: true`) but the integration is not configured and never syncs;
   * `POST /integrations/{name}` with the dialog's fields (parseConfig, secrets `{}`) completes it.
   */
  needsConfiguration?(config: JsonObject): boolean;
  /** Checks a configuration body (the spec's fields and messages): problems, or what to keep. */
  parseConfig(body: unknown): ConfigProblem[] | ProviderConfig;
  /**
   * Tries the credentials against the provider (one cheap call); throws CannotConnectError. For
   * an OAuth provider with a dialog, `context.secrets` are the held tokens (the body has none).
   */
  verify(config: ProviderConfig, context: { urls: ProviderUrls; fetch: ProviderFetch; secrets?: Record<string, string> }): Promise<void>;
  /** Reads the provider and commits batches (see SyncContext). Resolves when done. */
  sync(context: SyncContext): Promise<void>;
}

// ------------------------------------------------------------------------------ OAuth

/** Connecting by OAuth (server/integrations/oauth.ts): each OAuth provider's authorize URL, code exchange and refresh. */
export interface OauthClient {
  clientId: string;
  clientSecret: string;
}

/** What an exchanged code gives: kept by saveConnection. */
export interface OauthGrant {
  config: JsonObject;
  secrets: Record<string, string>;
  externalAccountId: string | null;
}

export interface OauthProviderSpec {
  authorizeUrl(options: { urls: ProviderUrls; client: OauthClient; state: string; redirectUri: string }): string;
  exchange(options: { urls: ProviderUrls; client: OauthClient; code: string; redirectUri: string }): Promise<OauthGrant>;
  /**
   * Trades a refresh token for new tokens (providers whose access tokens expire: HubSpot). The
   * grant's secrets replace the held ones key by key (`access_token`, `refresh_token` when the
   * provider sends a new one, `expires_at` in ms since epoch as a string); its config is unused.
   * A refused refresh token throws CannotConnectError or ProviderHttpError 401.
   */
  refresh?(options: { urls: ProviderUrls; client: OauthClient; refreshToken: string }): Promise<OauthGrant>;
}
