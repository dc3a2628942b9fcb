import type { ColumnType, Generated, GeneratedAlways } from 'kysely';
import type { PlanId } from '../plans/catalogue';

/**
 * Kysely types of every table created by the migrations (docs/data-model.md describes them).
 * Conventions of both drivers (server/db/database.ts): `date` comes back as 'YYYY-MM-DD',
 * int8 as number, numeric as string, timestamptz as Date, jsonb parsed, text[] as string[].
 *
 * jsonb columns are written as JSON text (`JSON.stringify(value)`): node-postgres would turn a
 * JS array into a PostgreSQL array literal, so a string is the one form both drivers accept.
 */

/** A calendar day 'YYYY-MM-DD'. */
export type DateString = string;
/** An instant; written as a Date or an ISO string. */
export type Timestamp = ColumnType<Date, Date | string, Date | string>;
/** An instant with a default (usually now()). */
export type GeneratedTimestamp = ColumnType<Date, Date | string | undefined, Date | string>;
/** A nullable instant (null or omitted on insert). */
export type NullableTimestamp = ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
/** numeric: read as a decimal string, written as a string or number. */
export type Numeric = ColumnType<string, string | number, string | number>;
export type NullableNumeric = ColumnType<string | null, string | number | null | undefined, string | number | null>;
/** jsonb: read parsed, written as JSON text. */
export type Json<T> = ColumnType<T, string, string>;
export type GeneratedJson<T> = ColumnType<T, string | undefined, string>;
export type NullableJson<T> = ColumnType<T | null, string | null | undefined, string | null>;
/** text[] with a default. */
export type GeneratedTextArray = ColumnType<string[], string[] | undefined, string[]>;

export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };

// ------------------------------------------------------------------- enums (CHECK constraints)

export type PermissionLevel = 'user' | 'shared_report_only';
export type TakeExchangeRatesFrom = 'subscription_started_at' | 'beginning_of_month' | 'account';
export type CorrectionsHandling = 'change_original' | 'when_occurred';
export type AttributeObject = 'customer' | 'subscription_history' | 'cost';
export type SegmentValueSource = 'parent_and_children' | 'parent' | 'children';
export type ItemType = 'recurring' | 'metered' | 'one_time' | 'freemium';
export type DiscountKind = 'forever' | 'finite';
export type PaymentSource =
  | 'manual'
  | 'csv_import'
  | 'api'
  | 'demo'
  | 'stripe'
  | 'chargebee'
  | 'hubspot'
  | 'intercom'
  | 'zendesk'
  | 'fakturownia'
  | 'wfirma';
export type ImportKind = 'subscriptions' | 'segments' | 'costs';
export type ImportStatus = 'uploaded' | 'preview' | 'in_progress' | 'finalizing' | 'done' | 'failed';
export type RecalculationStatus = 'recalculated' | 'recalculating' | 'failed';
export type FreshnessStatus = 'fresh' | 'stale';
export type SectionDataType = 'line_chart' | 'bar_chart' | 'stacked_bar_chart' | 'cohort';
export type Resolution = 'week' | 'month' | 'quarter' | 'year';
export type DataCategory =
  | 'values'
  | 'counts'
  | 'units'
  | 'month_over_month_growth'
  | 'month_over_month_retention'
  | 'moving_average3';
export type ExportStatus = 'in_progress' | 'done' | 'failed';
export type ColumnRecalculationStatus = 'in_progress' | 'finished';
export type IntegrationName = 'stripe' | 'chargebee' | 'intercom' | 'zendesk' | 'hubspot' | 'fakturownia' | 'wfirma';
export type InvoiceProcessingStatus = 'pending' | 'distilled' | 'distillation_failed' | 'ignored';
export type DistillerMatcher = 'equal';
export type IssueDateTreatment = 'started_at' | 'ended_at';

// ------------------------------------------------------------------- jsonb shapes

export interface CustomerLink {
  external_system: string;
  url: string;
}
/** A payment item as kept in payment_versions.items. */
export interface PaymentVersionItem {
  product_key: string;
  type: ItemType;
  quantity: number;
}
/** A discount as kept in payment_versions.discounts. */
export interface PaymentVersionDiscount {
  kind: DiscountKind;
  monthly_amount: number;
  name?: string | null;
  /** A finite discount's months (migration 0016); absent or null: the whole payment. */
  months?: number | null;
}

// ------------------------------------------------------------------- reference tables

export interface CurrenciesTable {
  iso: string;
  name: string;
  minor_unit_digits: number;
}

export interface ExchangeRatesTable {
  day: DateString;
  currency: string;
  /** Units of `currency` for one euro (ECB reference rate). */
  rate_per_eur: Numeric;
}

export interface TemplatesTable {
  id: string;
  name: string;
  description: Generated<string>;
  definitions: GeneratedJson<JsonValue[]>;
  position: Generated<number>;
  created_at: GeneratedTimestamp;
}

export interface OutboxEmailsTable {
  id: GeneratedAlways<number>;
  account_id: string | null;
  to: string;
  subject: string;
  text: string;
  html: string | null;
  created_at: GeneratedTimestamp;
  sent_at: NullableTimestamp;
}

// ------------------------------------------------------------------- accounts and users

export interface AccountsTable {
  id: string;
  name: Generated<string>;
  currency: Generated<string>;
  anonymous_access_allowed: Generated<boolean>;
  churn_window_seconds: Generated<number>;
  take_exchange_rates_from: Generated<TakeExchangeRatesFrom>;
  match_movements_by_currency: Generated<boolean>;
  corrections_handling: Generated<CorrectionsHandling>;
  /** METRICS.md: metered items count toward MRR only when this is on. */
  include_metered_in_mrr: Generated<boolean>;
  is_demo: Generated<boolean>;
  /** The account's plan (server/plans/catalogue.ts); 'starter' unless chosen (migration 0014). */
  plan_id: Generated<PlanId>;
  /** Raised by triggers on every change to what the metrics snapshot is built from (migration 0004). */
  data_version: Generated<number>;
  created_at: GeneratedTimestamp;
  updated_at: GeneratedTimestamp;
}

/** One chunk of an account's stored, built metrics snapshot (server/metrics/snapshotStore.ts). */
export interface MetricsSnapshotCopiesTable {
  account_id: string;
  chunk_no: number;
  chunks: number;
  data_version: number;
  /** Engine code and V8 serialization format the copy was written with. */
  format: string;
  /** ISO codes the copy holds ECB rates for. */
  currencies: string[];
  body: Uint8Array;
  written_at: GeneratedTimestamp;
}

/** One row: from `since` on, one unit of the account currency buys `rate` units of `iso`. */
export interface AccountExchangeRatesTable {
  account_id: string;
  since: DateString;
  iso: string;
  rate: Numeric;
}

export interface UsersTable {
  account_id: string;
  id: string;
  email: string;
  name: Generated<string>;
  /** scrypt hash (server/auth/password.ts); null while the user's invitation is pending. */
  password_hash: string | null;
  permission_level: Generated<PermissionLevel>;
  currency: string | null;
  api_token: string;
  customer_columns: GeneratedJson<JsonValue[]>;
  marketing_ref: string | null;
  last_sign_in_at: NullableTimestamp;
  created_at: GeneratedTimestamp;
  updated_at: GeneratedTimestamp;
}

export interface InvitationsTable {
  account_id: string;
  id: string;
  token_hash: string;
  email: string;
  name: string;
  permission_level: Generated<PermissionLevel>;
  inviter_user_id: string | null;
  /** The invitee's user row (no password until the invitation is accepted). */
  user_id: string;
  expires_at: Timestamp;
  accepted_at: NullableTimestamp;
  created_at: GeneratedTimestamp;
}

export interface PasswordResetTokensTable {
  account_id: string;
  id: string;
  user_id: string;
  token_hash: string;
  expires_at: Timestamp;
  used_at: NullableTimestamp;
  created_at: GeneratedTimestamp;
}

export interface RevokedJwtsTable {
  account_id: string;
  jti: string;
  user_id: string | null;
  expires_at: Timestamp;
  revoked_at: GeneratedTimestamp;
}

/**
 * One sign-in attempt, for throttling (server/auth/throttle.ts). Pre-authentication data of
 * no account: a system table without `account_id`. `email_key` is the trimmed, lower-cased
 * e-mail as typed; rows older than the throttle window are purged.
 */
export interface SignInAttemptsTable {
  id: GeneratedAlways<number>;
  email_key: string;
  ip: string;
  succeeded: boolean;
  attempted_at: Timestamp;
}

// ------------------------------------------------------------------- customers and attributes

export interface CustomersTable {
  account_id: string;
  id: string;
  /** The customer's id in the source system (CSV customer_id, Stripe customer...). */
  public_id: string | null;
  name: string;
  parent_id: string | null;
  include_in_calculations_by_default: Generated<boolean>;
  added_at: GeneratedTimestamp;
  links: GeneratedJson<CustomerLink[]>;
  source: Generated<string>;
  deleted_at: NullableTimestamp;
  created_at: GeneratedTimestamp;
  updated_at: GeneratedTimestamp;
}

export interface ObjectAttributesTable {
  account_id: string;
  id: string;
  name: string;
  object: AttributeObject;
  created_at: GeneratedTimestamp;
}

export interface CustomerSegmentsTable {
  account_id: string;
  id: string;
  object_attribute_id: string;
  name: string;
  value_source: Generated<SegmentValueSource>;
  time_sensitive: Generated<boolean>;
  created_at: GeneratedTimestamp;
}

/** Value of a customer segment from (year, month) on, until a later row; month is 1-12. */
export interface CustomerSegmentValuesTable {
  account_id: string;
  customer_id: string;
  segment_id: string;
  year: number;
  month: number;
  value: string | null;
  updated_at: GeneratedTimestamp;
}

export interface ProductsTable {
  account_id: string;
  key: string;
  name: string;
  created_at: GeneratedTimestamp;
}

// ------------------------------------------------------------------- imports

export interface ImportsTable {
  account_id: string;
  id: string;
  kind: ImportKind;
  status: Generated<ImportStatus>;
  file_name: string;
  byte_size: number | null;
  total_rows: Generated<number>;
  success_count: Generated<number>;
  failure_count: Generated<number>;
  /** Percent, 0-100. */
  progress: Generated<number>;
  result: NullableJson<JsonValue>;
  column_mapping: NullableJson<JsonValue>;
  skip_headers: Generated<boolean>;
  customer_segment_id: string | null;
  created_by_user_id: string | null;
  created_at: GeneratedTimestamp;
  updated_at: GeneratedTimestamp;
  finished_at: NullableTimestamp;
  /** What the reader detected: ',', ';' or a tab. */
  delimiter: string | null;
  /** What the upload's read of the file learned (server/imports/upload.ts FileFacts). */
  file_facts: NullableJson<JsonValue>;
  /** What the reader detected: 'utf-8', 'utf-16le', 'windows-1250', ... */
  encoding: string | null;
}

/** An uploaded subscription file, in chunks (migration 0006). */
export interface ImportFilesTable {
  account_id: string;
  import_id: string;
  chunk: number;
  bytes: Uint8Array;
}

export interface ImportRowsTable {
  account_id: string;
  import_id: string;
  /** 1-based row number in the uploaded file. */
  row_number: number;
  cells: string[];
  error: string | null;
}

// ------------------------------------------------------------------- payments

/** The current version of a payment (subscription history). */
export interface PaymentsTable {
  account_id: string;
  /** 'subh' + 12 characters. */
  id: string;
  customer_id: string;
  /** Number of the current row in payment_versions. */
  version: Generated<number>;
  started_at: DateString;
  /**
   * First day after the service period [started_at, ended_at): started_at + whole months (day
   * clamped) or any later day; null for an open-ended payment (migration 0015).
   */
  ended_at: DateString | null;
  /** Whole months, or days / (365 / 12) for another period; null when open-ended. */
  duration_in_months: number | null;
  /** Minor units of `currency`, before discounts; null when open-ended. */
  total_value: number | null;
  /**
   * Minor units of `currency` per month, exact (may carry a fraction of a minor unit); null means
   * total_value / duration_in_months. Required when open-ended. A writer of total_value or the
   * period writes it too (or null).
   */
  monthly_amount: number | null;
  currency: string;
  invoice_number: string | null;
  source: Generated<PaymentSource>;
  external_id: string | null;
  import_id: string | null;
  created_at: GeneratedTimestamp;
  updated_at: GeneratedTimestamp;
  deleted_at: NullableTimestamp;
}

export interface PaymentItemsTable {
  account_id: string;
  payment_id: string;
  position: Generated<number>;
  product_key: string;
  type: ItemType;
  quantity: Generated<number>;
}

export interface PaymentDiscountsTable {
  account_id: string;
  payment_id: string;
  position: Generated<number>;
  kind: DiscountKind;
  /** Minor units of the payment's currency subtracted from its MRR. */
  monthly_amount: number;
  name: string | null;
  /**
   * A finite discount's months from the payment's start: it applies on [started_at, started_at +
   * months); null: the whole payment (every forever discount, and finite ones written before 0016).
   */
  months: number | null;
}

/** Every version of every payment; the current one has valid_to null. */
export interface PaymentVersionsTable {
  account_id: string;
  payment_id: string;
  version: number;
  customer_id: string;
  started_at: DateString;
  ended_at: DateString | null;
  duration_in_months: number | null;
  total_value: number | null;
  monthly_amount: number | null;
  currency: string;
  invoice_number: string | null;
  items: GeneratedJson<PaymentVersionItem[]>;
  discounts: GeneratedJson<PaymentVersionDiscount[]>;
  /** This version records the payment's deletion. */
  deleted: Generated<boolean>;
  valid_from: GeneratedTimestamp;
  valid_to: NullableTimestamp;
  recorded_at: GeneratedTimestamp;
  recorded_by_user_id: string | null;
}

export interface PaymentSegmentValuesTable {
  account_id: string;
  payment_id: string;
  attribute_id: string;
  value: string | null;
}

// ------------------------------------------------------------------- costs and deals

export interface CostsTable {
  account_id: string;
  id: string;
  name: string | null;
  /** Minor units of `currency`. */
  value: number;
  currency: string;
  date: DateString;
  due_date: DateString | null;
  invoice_number: string | null;
  source: Generated<string>;
  external_id: string | null;
  import_id: string | null;
  created_at: GeneratedTimestamp;
  updated_at: GeneratedTimestamp;
}

export interface CostSegmentValuesTable {
  account_id: string;
  cost_id: string;
  attribute_id: string;
  value: string | null;
}

export interface DealsTable {
  account_id: string;
  id: string;
  public_id: string | null;
  customer_id: string | null;
  name: string;
  value: Generated<number>;
  currency: string;
  stage: string;
  stage_changed_at: NullableTimestamp;
  owner_name: string | null;
  external_url: string | null;
  source: Generated<string>;
  created_at: GeneratedTimestamp;
  updated_at: GeneratedTimestamp;
}

// ------------------------------------------------------------------- reports

export interface ReportGroupsTable {
  account_id: string;
  id: string;
  name: Generated<string>;
  created_at: GeneratedTimestamp;
}

export interface ReportGroupSecretsTable {
  account_id: string;
  id: string;
  group_id: string;
  secret: string;
  created_at: GeneratedTimestamp;
}

export interface BusinessReportsTable {
  account_id: string;
  id: string;
  /** Random, >= 128 bits, at least 22 characters. */
  secret: string;
  group_id: string | null;
  owner_user_id: string | null;
  title: Generated<string>;
  summary: Generated<string>;
  tags: GeneratedTextArray;
  /** Months are 1-12. */
  start_year: number;
  start_month: number;
  end_year: number;
  end_month: number;
  currency: string | null;
  filter: NullableJson<JsonValue>;
  refreshed_at: NullableTimestamp;
  recalculation_status: Generated<RecalculationStatus>;
  freshness_status: Generated<FreshnessStatus>;
  /** accounts.data_version the sections were last computed from (0009): fresh while it is the account's. */
  computed_data_version: ColumnType<number | null, number | null | undefined, number | null>;
  /** Raised by triggers with every write to the report and its settings, sections, segments and key numbers (0010). */
  revision: Generated<number>;
  /** The report a scheduled successor was made from; unique per account (0011). */
  predecessor_id: ColumnType<string | null, string | null | undefined, string | null>;
  /** When its scheduled successor was made (0011). */
  succeeded_at: NullableTimestamp;
  /** UTC day ('YYYY-MM-DD') of its last daily automatic refresh (0011). */
  auto_refreshed_on: ColumnType<string | null, string | null | undefined, string | null>;
  created_at: GeneratedTimestamp;
  updated_at: GeneratedTimestamp;
}

export interface ReportSettingsTable {
  account_id: string;
  report_id: string;
  repeatable: Generated<boolean>;
  auto_refresh: Generated<boolean>;
  display_quarters: Generated<boolean>;
  subtract_forever_discount_from_mrr: Generated<boolean>;
  subtract_finite_discount_from_mrr: Generated<boolean>;
  currency: string | null;
  updated_at: GeneratedTimestamp;
}

export interface ReportShareSecretsTable {
  account_id: string;
  id: string;
  report_id: string;
  secret: string;
  segmenter_id: string | null;
  segment_value: string | null;
  created_at: GeneratedTimestamp;
}

export interface ReportSectionsTable {
  account_id: string;
  id: string;
  report_id: string;
  definition_id: string;
  title: Generated<string>;
  summary: Generated<string>;
  data_type: Generated<SectionDataType>;
  use_hierarchy: Generated<boolean>;
  resolution: Generated<Resolution>;
  position: Generated<number>;
  data_categories: ColumnType<DataCategory[], DataCategory[] | undefined, DataCategory[]>;
  /** Show two decimals. */
  decimal: Generated<boolean>;
  reference_value: NullableNumeric;
  /** Custom sections: {groups, series}. */
  config: NullableJson<JsonValue>;
  recalculation_status: Generated<RecalculationStatus>;
  /** The computed segments and series. */
  result: NullableJson<JsonValue>;
  computed_at: NullableTimestamp;
  /** Why its last computation failed (0009). */
  error: ColumnType<string | null, string | null | undefined, string | null>;
  created_at: GeneratedTimestamp;
  updated_at: GeneratedTimestamp;
}

export interface ReportSectionSegmentsTable {
  account_id: string;
  section_id: string;
  segmenter_id: string;
  position: Generated<number>;
}

export interface CommentsTable {
  account_id: string;
  id: string;
  report_id: string;
  section_id: string | null;
  user_id: string | null;
  content: string;
  added_at: GeneratedTimestamp;
  pinned_at: NullableTimestamp;
}

export interface KeyNumbersTable {
  account_id: string;
  report_id: string;
  section_id: string;
  definition_id: string;
  position: Generated<number>;
  created_at: GeneratedTimestamp;
}

export interface SectionExportsTable {
  account_id: string;
  id: string;
  section_id: string;
  user_id: string;
  params: GeneratedJson<JsonObject>;
  status: Generated<ExportStatus>;
  file_name: string | null;
  content_type: string | null;
  content: Uint8Array | null;
  error: string | null;
  created_at: GeneratedTimestamp;
  finished_at: NullableTimestamp;
}

// ------------------------------------------------------------------- segmentation and columns

export interface SegmenterDefinitionsTable {
  account_id: string;
  id: string;
  name: string;
  type_name: string;
  object_attribute_id: string | null;
  mappings: GeneratedJson<JsonValue[]>;
  buckets: GeneratedJson<JsonValue[]>;
  products: GeneratedTextArray;
  created_at: GeneratedTimestamp;
  updated_at: GeneratedTimestamp;
}

export interface CustomerColumnDefinitionsTable {
  account_id: string;
  id: string;
  name: string;
  formula: string;
  variables: GeneratedJson<JsonValue[]>;
  recalculation_status: Generated<ColumnRecalculationStatus>;
  created_by_user_id: string | null;
  /** accounts.data_version its values were last computed from (0013): current while it is the account's. */
  computed_data_version: ColumnType<number | null, number | null | undefined, number | null>;
  /** UTC day ('YYYY-MM-DD') its values were last computed on (0013). */
  computed_on: ColumnType<string | null, string | null | undefined, string | null>;
  created_at: GeneratedTimestamp;
  updated_at: GeneratedTimestamp;
  /** Raised by a trigger on every write to the definition's values (migration 0012): the list's cached sort order of the column. */
  values_version: Generated<number>;
}

export interface CustomerColumnValuesTable {
  account_id: string;
  definition_id: string;
  customer_id: string;
  value: NullableNumeric;
  computed_at: GeneratedTimestamp;
}

// ------------------------------------------------------------------- integrations and invoices

export interface IntegrationsTable {
  account_id: string;
  name: IntegrationName;
  enabled: Generated<boolean>;
  configured: Generated<boolean>;
  initially_synced: Generated<boolean>;
  /** Percent, 0-100. */
  initial_progress: Generated<number>;
  config: GeneratedJson<JsonObject>;
  /** Credentials, encrypted by the application; never sent to a client. */
  secret_config: NullableJson<JsonValue>;
  last_synced_at: NullableTimestamp;
  last_error: string | null;
  created_at: GeneratedTimestamp;
  updated_at: GeneratedTimestamp;
  sync_status: Generated<IntegrationSyncStatus>;
  sync_mode: 'initial' | 'incremental' | null;
  /** The cursor of the last committed batch of the run in progress (resume point). */
  sync_cursor: NullableJson<JsonObject>;
  sync_started_at: NullableTimestamp;
  last_success_started_at: NullableTimestamp;
  /** The provider's id of the connected account (Stripe `acct_…`): a webhook finds its account by it. */
  external_account_id: string | null;
}

export type IntegrationSyncStatus = 'idle' | 'queued' | 'syncing' | 'failed';

export interface OauthStatesTable {
  account_id: string;
  state: string;
  provider: 'stripe' | 'hubspot' | 'intercom';
  user_id: string;
  redirect_url: string | null;
  created_at: GeneratedTimestamp;
  expires_at: Timestamp;
}

export interface InvoiceItemsTable {
  account_id: string;
  id: string;
  source: Generated<string>;
  external_id: string | null;
  name: string;
  value: number;
  currency: string;
  quantity: Generated<number>;
  invoice_number: string | null;
  invoice_buyer_name: string | null;
  invoice_buyer_id: string | null;
  invoice_issue_date: DateString | null;
  processing_status: Generated<InvoiceProcessingStatus>;
  payment_id: string | null;
  created_at: GeneratedTimestamp;
  updated_at: GeneratedTimestamp;
}

export interface DistillersTable {
  account_id: string;
  id: string;
  line_name: string;
  matcher: Generated<DistillerMatcher>;
  item_type: ItemType;
  issue_date_treatment: IssueDateTreatment;
  product_key: string;
  duration_in_months: number;
  created_at: GeneratedTimestamp;
}

// ------------------------------------------------------------------- audit

export interface AuditLogTable {
  account_id: string;
  id: GeneratedAlways<number>;
  entity_type: string;
  entity_id: string;
  event: string;
  status: string | null;
  details: GeneratedJson<JsonObject>;
  user_id: string | null;
  created_at: GeneratedTimestamp;
}

export interface DB {
  account_exchange_rates: AccountExchangeRatesTable;
  accounts: AccountsTable;
  audit_log: AuditLogTable;
  business_reports: BusinessReportsTable;
  comments: CommentsTable;
  cost_segment_values: CostSegmentValuesTable;
  costs: CostsTable;
  currencies: CurrenciesTable;
  customer_column_definitions: CustomerColumnDefinitionsTable;
  customer_column_values: CustomerColumnValuesTable;
  customer_segment_values: CustomerSegmentValuesTable;
  customer_segments: CustomerSegmentsTable;
  customers: CustomersTable;
  deals: DealsTable;
  distillers: DistillersTable;
  exchange_rates: ExchangeRatesTable;
  import_files: ImportFilesTable;
  import_rows: ImportRowsTable;
  imports: ImportsTable;
  integrations: IntegrationsTable;
  invitations: InvitationsTable;
  oauth_states: OauthStatesTable;
  invoice_items: InvoiceItemsTable;
  key_numbers: KeyNumbersTable;
  metrics_snapshot_copies: MetricsSnapshotCopiesTable;
  object_attributes: ObjectAttributesTable;
  outbox_emails: OutboxEmailsTable;
  password_reset_tokens: PasswordResetTokensTable;
  payment_discounts: PaymentDiscountsTable;
  payment_items: PaymentItemsTable;
  payment_segment_values: PaymentSegmentValuesTable;
  payment_versions: PaymentVersionsTable;
  payments: PaymentsTable;
  products: ProductsTable;
  report_group_secrets: ReportGroupSecretsTable;
  report_groups: ReportGroupsTable;
  report_section_segments: ReportSectionSegmentsTable;
  report_sections: ReportSectionsTable;
  report_settings: ReportSettingsTable;
  report_share_secrets: ReportShareSecretsTable;
  revoked_jwts: RevokedJwtsTable;
  section_exports: SectionExportsTable;
  segmenter_definitions: SegmenterDefinitionsTable;
  sign_in_attempts: SignInAttemptsTable;
  templates: TemplatesTable;
  users: UsersTable;
}

/** Tables without `account_id`: replicated reference data and system tables. */
export const REFERENCE_TABLES = ['accounts', 'currencies', 'exchange_rates', 'outbox_emails', 'sign_in_attempts', 'templates'] as const satisfies readonly (keyof DB)[];
