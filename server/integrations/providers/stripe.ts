import Stripe from 'stripe';
import type { JsonObject } from '../../db/schema';
import type { ProviderUrls } from '../../config';
import { durationInMonthsOf, endDateOf } from '../../../models/payments';
import { CannotConnectError, type IntegrationProvider, type ProviderFetch, type SyncBatch, type SyncContext, type SyncCustomer, type SyncPayment } from '../types';

/**
 * Stripe, connected through Stripe Connect OAuth (server/integrations/oauth.ts): the access
 * token and the connected account (`acct_…`, sent as `Stripe-Account`) are the secrets; the
 * official `stripe` SDK is pointed at `providerUrls.stripeApi` (host, port, protocol) and sends
 * through the sync's fetch (retries of 429/5xx with Retry-After, abort on disconnect).
 *
 * What becomes what (docs/stripe.md):
 * - a customer -> a customer (public id `cus_…`);
 * - each line of a paid invoice -> a payment of the line's service period (the price's
 *   recurring interval decides the months: month x n, year x 12n, week x 12n/52, day x 12n/365;
 *   metered prices typed `metered`, prices without `recurring` `one_time`), its quantity, its
 *   discount (the coupon's duration: forever, or finite for once/repeating), its currency;
 * - the current period of an active or past-due subscription whose latest invoice is not paid
 *   yet -> the payment that paid invoice will become (same external id: `si_…@start`);
 * - the lines of a voided or uncollectible invoice -> deleted payments.
 * An initial sync reads prices, products and coupons, then customers, subscriptions and invoices
 * page by page (100 a page, `starting_after`), committing each page with its cursor; an
 * incremental one reads the events since the last successful sync started and re-reads each
 * object they name.
 */

export const STRIPE_PAGE = 100;
/**
 * Pages written per commit (one transaction with their cursor): fewer, larger writes are faster.
 * Batches handed to the database that may wait for it while reading goes on (memory held). A
 * killed sync re-reads at most pagesPerCommit x (commitsQueued + 1) pages. Tests may lower them.
 */
export const stripeSyncSettings = { pagesPerCommit: 50, commitsQueued: 2 };
/** Only what an incremental sync needs; Stripe keeps events for 30 days (the catch-up runs every 30 minutes). */
export const STRIPE_EVENT_TYPES = ['customer.created', 'customer.updated', 'customer.subscription.*', 'invoice.*'];

/** An SDK client for the connected account (or the platform, for OAuth), at the configured URL. */
export function stripeClient(options: { apiUrl: string; apiKey: string; fetch?: ProviderFetch; stripeAccount?: string | null }): Stripe {
  const url = new URL(options.apiUrl);
  const protocol = url.protocol === 'http:' ? 'http' : 'https';
  return new Stripe(options.apiKey, {
    host: url.hostname,
    port: url.port || (protocol === 'http' ? 80 : 443),
    protocol,
    // Retries are the sync fetch's (Retry-After honoured, the abort signal obeyed).
    maxNetworkRetries: 0,
    telemetry: false,
    httpClient: Stripe.createFetchHttpClient((options.fetch ?? fetch) as typeof fetch),
    ...(options.stripeAccount ? { stripeAccount: options.stripeAccount } : {}),
  });
}

// ------------------------------------------------------------------ wire shapes read (a subset)
interface StripeList<T> {
  data: T[];
  has_more: boolean;
  total_count?: number;
}
interface StripePrice {
  id: string;
  product: string | { id: string; name?: string };
  unit_amount: number | null;
  currency: string;
  recurring: { interval: 'day' | 'week' | 'month' | 'year'; interval_count: number; usage_type?: 'licensed' | 'metered' } | null;
}
interface StripeCoupon {
  id: string;
  name: string | null;
  duration: 'forever' | 'once' | 'repeating';
  duration_in_months: number | null;
  percent_off: number | null;
  amount_off: number | null;
}
interface StripeDiscount {
  id: string;
  source?: { coupon?: string | StripeCoupon | null } | null;
  /** Older API versions. */
  coupon?: StripeCoupon;
}
interface StripeCustomer {
  id: string;
  name: string | null;
  email: string | null;
  deleted?: boolean;
}
interface StripeLine {
  id: string;
  amount: number;
  currency: string;
  description: string | null;
  quantity: number | null;
  period: { start: number; end: number };
  discount_amounts: { amount: number; discount: string | StripeDiscount }[] | null;
  pricing?: { price_details?: { price: string | StripePrice; product?: string } } | null;
  /** Older API versions. */
  price?: StripePrice | null;
  parent?: { subscription_item_details?: { subscription_item: string | null; proration: boolean } | null } | null;
}
interface StripeInvoice {
  id: string;
  number: string | null;
  customer: string | StripeCustomer | null;
  customer_name: string | null;
  customer_email: string | null;
  status: 'draft' | 'open' | 'paid' | 'uncollectible' | 'void' | null;
  created: number;
  discounts: (string | StripeDiscount)[] | null;
  lines: StripeList<StripeLine>;
}
interface StripeSubscriptionItem {
  id: string;
  price: StripePrice;
  quantity?: number;
  current_period_start: number;
  current_period_end: number;
}
interface StripeSubscription {
  id: string;
  customer: string | StripeCustomer;
  status: string;
  discounts: (string | StripeDiscount)[] | null;
  latest_invoice: string | StripeInvoice | null;
  items: StripeList<StripeSubscriptionItem>;
}
interface StripeEvent {
  id: string;
  type: string;
  data: { object: { id?: string; object?: string } };
}

// ------------------------------------------------------------------ mapping
/** Catalogue read at the start of every run (small): prices, product names, coupons. */
export interface StripeCatalogue {
  prices: Map<string, StripePrice>;
  productNames: Map<string, string>;
  coupons: Map<string, StripeCoupon>;
}

const idOf = (value: string | { id: string } | null | undefined): string | null => (value == null ? null : typeof value === 'string' ? value : value.id);
/** The UTC day of a Unix time; the days of a sync repeat, so each is written once. */
const dayTexts = new Map<number, string>();
const day = (unix: number): string => {
  const number = Math.floor(unix / 86_400);
  let text = dayTexts.get(number);
  if (text === undefined) {
    text = new Date(number * 86_400_000).toISOString().slice(0, 10);
    if (dayTexts.size < 100_000) dayTexts.set(number, text);
  }
  return text;
};

/** Months one billing interval lasts (METRICS.md section 1: weekly x 12/52, daily x 12/365). */
export function intervalMonths(recurring: NonNullable<StripePrice['recurring']>): number {
  const count = recurring.interval_count || 1;
  switch (recurring.interval) {
    case 'year':
      return 12 * count;
    case 'month':
      return count;
    case 'week':
      return (12 * count) / 52;
    default:
      return (12 * count) / 365;
  }
}

function productKeyOf(catalogue: StripeCatalogue, price: StripePrice | undefined, fallback: string | null | undefined): string {
  const product = idOf(price?.product ?? fallback ?? null);
  if (!product) return 'Stripe';
  const named = typeof price?.product === 'object' ? price.product.name : undefined;
  return named ?? catalogue.productNames.get(product) ?? product;
}

function couponOf(catalogue: StripeCatalogue, discount: string | StripeDiscount | undefined): StripeCoupon | null {
  if (!discount || typeof discount === 'string') return null;
  const coupon = discount.source?.coupon ?? discount.coupon ?? null;
  if (!coupon) return null;
  return typeof coupon === 'string' ? (catalogue.coupons.get(coupon) ?? null) : coupon;
}

/** A service period as days and months: [start, end), whole months when it is, else days / (365/12). */
function periodOf(start: number, end: number): { startedAt: string; endedAt: string; months: number } | null {
  const startedAt = day(start);
  const endedAt = day(end);
  if (endedAt <= startedAt) return null;
  return { startedAt, endedAt, months: durationInMonthsOf(startedAt, endedAt) };
}

function discountOf(coupon: StripeCoupon | null, amount: number, months: number): SyncPayment['discount'] {
  if (amount <= 0) return null;
  if (coupon?.duration === 'forever') return { kind: 'forever', monthlyAmount: amount / months, months: null, name: coupon.name ?? coupon.id };
  return { kind: 'finite', monthlyAmount: amount / months, months: coupon?.duration === 'repeating' ? coupon.duration_in_months : Math.max(1, Math.round(months)), name: coupon ? (coupon.name ?? coupon.id) : null };
}

/** The external id of a payment: a subscription's regular line is keyed by its item and period start (the subscription phase writes the same key); any other line by its own id. */
function lineKey(line: StripeLine): string {
  const details = line.parent?.subscription_item_details;
  if (details?.subscription_item && !details.proration) return `${details.subscription_item}@${day(line.period.start)}`;
  return line.id;
}

/** The payments of one invoice's lines (paid invoices), or the keys to delete (void, uncollectible). */
export function invoicePayments(catalogue: StripeCatalogue, invoice: StripeInvoice, lines: StripeLine[]): { payments: SyncPayment[]; deleted: string[] } {
  const customer = idOf(invoice.customer);
  if (!customer) return { payments: [], deleted: [] };
  if (invoice.status === 'void' || invoice.status === 'uncollectible') return { payments: [], deleted: lines.map(lineKey) };
  if (invoice.status !== 'paid') return { payments: [], deleted: [] };
  const discounts = new Map<string, StripeDiscount>();
  for (const discount of invoice.discounts ?? []) if (typeof discount !== 'string') discounts.set(discount.id, discount);
  const payments: SyncPayment[] = [];
  for (const line of lines) {
    // Free lines (trials) and credits (downgrade prorations) carry no revenue of their own.
    if (line.amount <= 0) continue;
    const priceRef = line.pricing?.price_details?.price ?? line.price ?? null;
    const price = typeof priceRef === 'string' ? catalogue.prices.get(priceRef) : (priceRef ?? undefined);
    const recurring = price?.recurring ?? null;
    let period = recurring ? periodOf(line.period.start, line.period.end) : null;
    // A one-time charge (or a line without a period): one month from its day.
    if (!period) {
      const startedAt = day(line.period.start || invoice.created);
      period = { startedAt, endedAt: endDateOf(startedAt, 1), months: 1 };
    }
    const discountTotal = (line.discount_amounts ?? []).reduce((sum, entry) => sum + entry.amount, 0);
    const firstDiscount = line.discount_amounts?.find((entry) => entry.amount > 0)?.discount;
    const coupon = couponOf(catalogue, typeof firstDiscount === 'string' ? discounts.get(firstDiscount) : firstDiscount);
    payments.push({
      externalId: lineKey(line),
      customerExternalId: customer,
      startedAt: period.startedAt,
      endedAt: period.endedAt,
      totalValue: line.amount,
      monthlyAmount: line.amount / period.months,
      currency: line.currency.toUpperCase(),
      invoiceNumber: invoice.number,
      productKey: productKeyOf(catalogue, price, line.pricing?.price_details?.product),
      itemType: recurring ? (recurring.usage_type === 'metered' ? 'metered' : 'recurring') : 'one_time',
      quantity: line.quantity ?? 1,
      discount: discountOf(coupon, discountTotal, period.months),
    });
  }
  return { payments, deleted: [] };
}

/** The current, not yet paid period of an active subscription's licensed items (past due included). */
export function subscriptionPayments(catalogue: StripeCatalogue, subscription: StripeSubscription): SyncPayment[] {
  if (subscription.status !== 'active' && subscription.status !== 'past_due') return [];
  const customer = idOf(subscription.customer);
  if (!customer) return [];
  const latest = subscription.latest_invoice;
  const coupons = (subscription.discounts ?? []).map((discount) => couponOf(catalogue, discount)).filter((coupon): coupon is StripeCoupon => coupon !== null);
  const payments: SyncPayment[] = [];
  for (const item of subscription.items.data) {
    const recurring = item.price.recurring;
    if (!recurring || recurring.usage_type === 'metered' || item.price.unit_amount == null) continue;
    // The latest invoice paid this period: the invoice phase writes it, with its number and real amounts.
    if (latest && typeof latest !== 'string' && latest.status === 'paid' && latest.lines.data.some((line) => lineKey(line) === `${item.id}@${day(item.current_period_start)}`)) continue;
    const period = periodOf(item.current_period_start, item.current_period_end);
    if (!period) continue;
    const quantity = item.quantity ?? 1;
    const total = item.price.unit_amount * quantity;
    if (total <= 0) continue;
    let discountAmount = 0;
    for (const coupon of coupons) discountAmount += coupon.percent_off != null ? (total * coupon.percent_off) / 100 : Math.min(total, coupon.amount_off ?? 0);
    payments.push({
      externalId: `${item.id}@${period.startedAt}`,
      customerExternalId: customer,
      startedAt: period.startedAt,
      endedAt: period.endedAt,
      totalValue: total,
      monthlyAmount: total / period.months,
      currency: item.price.currency.toUpperCase(),
      invoiceNumber: null,
      productKey: productKeyOf(catalogue, item.price, null),
      itemType: 'recurring',
      quantity,
      discount: discountOf(coupons[0] ?? null, Math.round(discountAmount), period.months),
      standIn: true,
    });
  }
  return payments;
}

const customerOf = (customer: StripeCustomer): SyncCustomer => ({ externalId: customer.id, name: customer.name || customer.email || customer.id });

// ------------------------------------------------------------------ the sync
/** The lists a first sync reads. */
type ListPhase = 'customers' | 'subscriptions' | 'invoices';
/**
 * The lanes of a first sync, read side by side, each its phases in order. Customers need no
 * order against payments (a payment's customer missing yet is made, named by its id, and the
 * customers list renames it); nor do subscriptions against invoices, though both write the same
 * payment keys: a subscription's unpaid term is a stand-in (SyncPayment.standIn) that never
 * replaces what an invoice decided, and a term whose line a void invoice removed earlier in the
 * run is left out (initialSync). So the invoices, most of a first sync's rows, are written from
 * the start while the other lists are read.
 */
const LANES: readonly (readonly ListPhase[])[] = [['customers'], ['subscriptions'], ['invoices']];
/** Where a lane stands: its phase, the last object read of it, how many so far, whether the lane is read whole. */
interface LanePosition {
  phase: ListPhase;
  after: string | null;
  read: number;
  done: boolean;
}
interface Cursor {
  phase: 'lanes';
  lanes: LanePosition[];
  /** Totals the lists gave (progress). */
  totals: Partial<Record<ListPhase, number>>;
}
/** The share of an initial sync's percent each list has: what reading and writing it takes. */
const PHASE_SPAN: Record<ListPhase, number> = { customers: 15, subscriptions: 30, invoices: 54 };

const startOf = (lane: readonly ListPhase[]): LanePosition => ({ phase: lane[0] as ListPhase, after: null, read: 0, done: false });

/**
 * The cursor to go on from: a lanes cursor as committed; one of the two lanes the sync had
 * before (customers; subscriptions then invoices) or of the phase-by-phase sync before lanes
 * (`{phase, after, read, totals}`), for a sync killed across an upgrade; or a start.
 */
function resumeFrom(resumed: unknown): Cursor {
  const start: Cursor = { phase: 'lanes', lanes: LANES.map(startOf), totals: {} };
  if (!resumed || typeof resumed !== 'object') return start;
  const cursor = resumed as Omit<Partial<Cursor>, 'phase'> & { phase?: string; after?: string | null; read?: number };
  const totals = (cursor.totals ?? {}) as Cursor['totals'];
  const done = (phase: ListPhase): LanePosition => ({ phase, after: null, read: totals[phase] ?? 0, done: true });
  // Where each list stands, from the customers' and the one list read after them.
  const lanesOf = (customers: LanePosition, later: LanePosition | null): Cursor => {
    const subscriptions = later?.phase === 'subscriptions' ? later : later?.phase === 'invoices' ? done('subscriptions') : startOf(['subscriptions']);
    const invoices = later?.phase === 'invoices' ? later : startOf(['invoices']);
    return { phase: 'lanes', lanes: [customers, subscriptions, invoices], totals };
  };
  if (cursor.phase === 'lanes' && Array.isArray(cursor.lanes)) {
    if (cursor.lanes.length === LANES.length) return cursor as unknown as Cursor;
    const [customers, later] = cursor.lanes as [LanePosition | undefined, LanePosition | undefined];
    return cursor.lanes.length === 2 && customers && later ? lanesOf(customers, later) : start;
  }
  const position = (phase: ListPhase): LanePosition => ({ phase, after: cursor.after ?? null, read: cursor.read ?? 0, done: false });
  if (cursor.phase === 'customers') return lanesOf(position('customers'), null);
  if (cursor.phase === 'subscriptions' || cursor.phase === 'invoices') return lanesOf(done('customers'), position(cursor.phase));
  return start;
}

function progressOf(cursor: Cursor): number {
  let percent = 0;
  cursor.lanes.forEach((position, k) => {
    const lane = LANES[k] as readonly ListPhase[];
    const current = lane.indexOf(position.phase);
    lane.forEach((phase, j) => {
      const total = cursor.totals[phase];
      // Without a total, an estimate that approaches the phase's end and never reaches it.
      const share = position.done || j < current ? 1 : j > current ? 0 : total ? Math.min(1, position.read / total) : position.read / (position.read + 1000);
      percent += PHASE_SPAN[phase] * share;
    });
  });
  return Math.floor(percent);
}

/** Turns the SDK's errors into sentences for the card and the sync log (never a key). */
export function stripeFailure(error: unknown): Error {
  if (error instanceof Stripe.errors.StripeAuthenticationError || error instanceof Stripe.errors.StripePermissionError) {
    return new Error('Stripe refused the connection; connect Stripe again in Settings');
  }
  if (error instanceof Stripe.errors.StripeRateLimitError) return new Error('Stripe kept answering "too many requests"; the sync will retry');
  if (error instanceof Stripe.errors.StripeError) return new Error(`Stripe answered: ${error.message}`);
  return error instanceof Error ? error : new Error(String(error));
}

async function listAll<T>(page: (after: string | null) => Promise<StripeList<T>>, each: (item: T) => void): Promise<void> {
  let after: string | null = null;
  for (;;) {
    const answer = await page(after);
    for (const item of answer.data) each(item);
    const last = answer.data.at(-1) as { id?: string } | undefined;
    if (!answer.has_more || !last?.id) return;
    after = last.id;
  }
}

async function readCatalogue(stripe: Stripe): Promise<StripeCatalogue> {
  const catalogue: StripeCatalogue = { prices: new Map(), productNames: new Map(), coupons: new Map() };
  await listAll(
    (after) => stripe.prices.list({ limit: STRIPE_PAGE, ...(after ? { starting_after: after } : {}) }) as unknown as Promise<StripeList<StripePrice>>,
    (price) => catalogue.prices.set(price.id, price),
  );
  await listAll(
    (after) => stripe.products.list({ limit: STRIPE_PAGE, ...(after ? { starting_after: after } : {}) }) as unknown as Promise<StripeList<{ id: string; name: string }>>,
    (product) => catalogue.productNames.set(product.id, product.name),
  );
  await listAll(
    (after) => stripe.coupons.list({ limit: STRIPE_PAGE, ...(after ? { starting_after: after } : {}) }) as unknown as Promise<StripeList<StripeCoupon>>,
    (coupon) => catalogue.coupons.set(coupon.id, coupon),
  );
  return catalogue;
}

/** All lines of an invoice: the embedded first page, then the rest from /v1/invoices/{id}/lines. */
async function linesOf(stripe: Stripe, invoice: StripeInvoice): Promise<StripeLine[]> {
  const lines = [...invoice.lines.data];
  let more = invoice.lines.has_more;
  while (more) {
    const last = lines.at(-1);
    const page = (await stripe.invoices.listLineItems(invoice.id, { limit: STRIPE_PAGE, ...(last ? { starting_after: last.id } : {}) })) as unknown as StripeList<StripeLine>;
    lines.push(...page.data);
    more = page.has_more && page.data.length > 0;
  }
  return lines;
}

/**
 * Customers a batch's payments name that neither this batch nor the database has (Stripe's
 * customer list leaves out deleted customers, whose invoices stay): a customer from the
 * invoice's own name, so every payment has its customer.
 */
class CustomerGuard {
  private readonly known = new Set<string>();
  constructor(private readonly context: SyncContext) {}

  see(ids: Iterable<string>): void {
    for (const id of ids) this.known.add(id);
  }

  async complete(batch: SyncBatch, names: Map<string, string>): Promise<void> {
    for (const customer of batch.customers ?? []) this.known.add(customer.externalId);
    const wanted = [...new Set((batch.payments ?? []).map((payment) => payment.customerExternalId))].filter((id) => !this.known.has(id));
    if (wanted.length === 0) return;
    const found = await this.context.db
      .selectFrom('customers')
      .select('public_id')
      .where('account_id', '=', this.context.accountId)
      .where('public_id', 'in', wanted)
      .where('deleted_at', 'is', null)
      .execute();
    for (const row of found) if (row.public_id) this.known.add(row.public_id);
    const missing = wanted.filter((id) => !this.known.has(id));
    if (missing.length === 0) return;
    batch.customers = [...(batch.customers ?? []), ...missing.map((id) => ({ externalId: id, name: names.get(id) || id }))];
    this.see(missing);
  }
}

interface PageRead {
  batch: SyncBatch;
  names: Map<string, string>;
  ids: string[];
  hasMore: boolean;
  totalCount: number | undefined;
}

/**
 * Starts an SDK call without the call-site stack the SDK captures for every request: it formats
 * that stack at once, which with source maps on is a large share of a list call's own work. A
 * failure still carries the SDK's stack from where it happened, and becomes a sentence
 * (stripeFailure) either way.
 */
function withoutCallSite<T>(call: () => Promise<T>): Promise<T> {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return call();
  } finally {
    Error.stackTraceLimit = limit;
  }
}

/** One page of a phase's list as Stripe answered it. */
interface PageAnswer {
  phase: ListPhase;
  list: StripeList<{ id: string }>;
}

/** Asks for one page of a phase's list. */
async function fetchPage(stripe: Stripe, phase: ListPhase, after: string | null, withTotal: boolean): Promise<PageAnswer> {
  const common = { limit: STRIPE_PAGE, ...(after ? { starting_after: after } : {}), ...(withTotal ? { include: ['total_count'] } : {}) };
  let list: unknown;
  if (phase === 'customers') list = await withoutCallSite(() => stripe.customers.list(common as Stripe.CustomerListParams));
  else if (phase === 'subscriptions') list = await withoutCallSite(() => stripe.subscriptions.list({ ...common, status: 'all', expand: ['data.discounts', 'data.latest_invoice'] } as Stripe.SubscriptionListParams));
  else list = await withoutCallSite(() => stripe.invoices.list({ ...common, expand: ['data.discounts'] } as Stripe.InvoiceListParams));
  return { phase, list: list as StripeList<{ id: string }> };
}

/** A page mapped (invoices with more than the embedded lines get the rest). */
async function mapPage(stripe: Stripe, catalogue: StripeCatalogue, { phase, list }: PageAnswer): Promise<PageRead> {
  const names = new Map<string, string>();
  const batch: SyncBatch = {};
  if (phase === 'customers') {
    batch.customers = (list.data as StripeCustomer[]).filter((customer) => !customer.deleted).map(customerOf);
  } else if (phase === 'subscriptions') {
    batch.payments = (list.data as StripeSubscription[]).flatMap((subscription) => subscriptionPayments(catalogue, subscription));
  } else {
    batch.payments = [];
    batch.deletedPayments = [];
    for (const invoice of list.data as StripeInvoice[]) {
      const customer = idOf(invoice.customer);
      if (customer && invoice.customer_name) names.set(customer, invoice.customer_name);
      const mapped = invoicePayments(catalogue, invoice, invoice.lines.has_more ? await linesOf(stripe, invoice) : invoice.lines.data);
      batch.payments.push(...mapped.payments);
      batch.deletedPayments.push(...mapped.deleted);
    }
  }
  return { batch, names, ids: list.data.map((object) => object.id), hasMore: list.has_more, totalCount: list.total_count };
}

function appendBatch(into: SyncBatch, from: SyncBatch): void {
  if (from.customers?.length) (into.customers ??= []).push(...from.customers);
  if (from.payments?.length) (into.payments ??= []).push(...from.payments);
  if (from.deletedPayments?.length) (into.deletedPayments ??= []).push(...from.deletedPayments);
}

/**
 * The initial sync: its lanes (LANES) read side by side, each its phases in order. Reading does
 * not wait for writing: a lane requests its next page as soon as one arrives, and every
 * `stripeSyncSettings.pagesPerCommit` pages (and at a phase's end) the pages read by every lane
 * are handed to the database with the cursor of all lanes, while the next ones are read (Stripe
 * answers while the database writes). Commits stay in the order the pages arrived, each starting
 * when the one before it ended; reading waits only when `stripeSyncSettings.commitsQueued` batches
 * are waiting already, which bounds the memory held. A failure stops every lane.
 */
async function initialSync(context: SyncContext, stripe: Stripe, catalogue: StripeCatalogue): Promise<void> {
  let cursor = resumeFrom(context.cursor);
  const guard = new CustomerGuard(context);
  // The last write handed over (each chained to the one before), and those not ended yet, oldest first.
  let last: Promise<void> = Promise.resolve();
  const held: Promise<void>[] = [];
  const inOrder = (write: () => Promise<void>) => {
    last = last.then(write);
    // Awaited later; a read failing first must not leave it unhandled.
    last.catch(() => undefined);
    held.push(last);
  };
  // The pages read by every lane and not handed over yet, in the order they arrived.
  let batch: SyncBatch = {};
  let names = new Map<string, string>();
  let pages = 0;
  // Hand-overs in the order they were asked for (the guard's lookup must not reorder them).
  let handing: Promise<void> = Promise.resolve();
  const handOver = (): Promise<void> => {
    const taken = { batch, names, at: cursor };
    batch = {};
    names = new Map();
    pages = 0;
    handing = handing.then(async () => {
      if (failed) return;
      // The guard knows every customer of the batches handed over, committed or not.
      await guard.complete(taken.batch, taken.names);
      // The batch is complete: its writing's own work is done now, while earlier batches are written.
      context.prepare?.(taken.batch);
      while (held.length >= stripeSyncSettings.commitsQueued) await held.shift();
      inOrder(() => context.commit(taken.batch, { cursor: taken.at as unknown as JsonObject, progress: progressOf(taken.at) }));
    });
    handing.catch(() => undefined);
    return handing;
  };
  let failed = false;
  // Payment keys the invoices of this run removed (void or uncollectible lines).
  const voided = new Set<string>();
  const request = (phase: ListPhase, after: string | null, withTotal: boolean) => {
    const promise = fetchPage(stripe, phase, after, withTotal);
    // Awaited by its lane; a commit failing first must not leave it unhandled.
    promise.catch(() => undefined);
    return promise;
  };
  const readLane = async (k: number) => {
    const lane = LANES[k] as readonly ListPhase[];
    let position = cursor.lanes[k] as LanePosition;
    if (position.done) return;
    for (const phase of lane.slice(lane.indexOf(position.phase))) {
      if (position.phase !== phase) position = { phase, after: null, read: 0, done: false };
      let pending = request(phase, position.after, cursor.totals[phase] === undefined);
      for (;;) {
        context.signal.throwIfAborted();
        const answer = await pending;
        if (failed) return;
        const lastId = answer.list.data.at(-1)?.id;
        const phaseDone = !answer.list.has_more || !lastId;
        // The next page is asked for before this one is mapped: Stripe answers meanwhile.
        if (!phaseDone) pending = request(phase, lastId, false);
        const page = await mapPage(stripe, catalogue, answer);
        if (failed) return;
        // A void invoice read before the subscription removed its term's line: no stand-in for it.
        if (phase === 'invoices') for (const key of page.batch.deletedPayments ?? []) voided.add(key);
        if (phase === 'subscriptions' && voided.size > 0) page.batch.payments = page.batch.payments?.filter((payment) => !voided.has(payment.externalId));
        appendBatch(batch, page.batch);
        for (const [id, name] of page.names) names.set(id, name);
        pages += 1;
        position = { phase, after: lastId ?? position.after, read: position.read + page.ids.length, done: phaseDone && phase === lane.at(-1) };
        const at = position;
        cursor = {
          phase: 'lanes',
          lanes: cursor.lanes.map((other, j) => (j === k ? at : other)),
          totals: page.totalCount !== undefined ? { ...cursor.totals, [phase]: page.totalCount } : cursor.totals,
        };
        if (phaseDone || pages >= stripeSyncSettings.pagesPerCommit) await handOver();
        if (phaseDone) break;
      }
      const read = position.read;
      inOrder(() => context.log(`stripe_${phase}_read`, { count: read }));
    }
  };
  // Every lane ends (the others stop at their next page once one failed) before the sync does.
  const lanes = await Promise.allSettled(
    LANES.map((_, k) =>
      readLane(k).catch((error: unknown) => {
        failed = true;
        throw error;
      }),
    ),
  );
  const failure = lanes.find((lane): lane is PromiseRejectedResult => lane.status === 'rejected');
  if (failure) throw failure.reason;
  await handing;
  await last;
}

/** Objects named by the events since `since`, oldest change first, each once. */
async function changedObjects(stripe: Stripe, since: Date): Promise<string[]> {
  const events: StripeEvent[] = [];
  // Five minutes of overlap: an event created while the last sync started is read again (harmless).
  const gte = Math.floor(since.getTime() / 1000) - 300;
  await listAll(
    (after) => stripe.events.list({ limit: STRIPE_PAGE, created: { gte }, types: STRIPE_EVENT_TYPES, ...(after ? { starting_after: after } : {}) }) as unknown as Promise<StripeList<StripeEvent>>,
    (event) => events.push(event),
  );
  const keys: string[] = [];
  const seen = new Set<string>();
  for (const event of events.reverse()) {
    const object = event.data.object;
    if (!object.id || !object.object) continue;
    const key = `${object.object}:${object.id}`;
    if (seen.has(key)) continue;
    seen.add(key);
    keys.push(key);
  }
  return keys;
}

async function incrementalSync(context: SyncContext, stripe: Stripe, catalogue: StripeCatalogue, since: Date): Promise<void> {
  const keys = await changedObjects(stripe, since);
  const resumed = context.cursor as { phase?: string; done?: number } | null;
  let done = resumed?.phase === 'events' ? (resumed.done ?? 0) : 0;
  const guard = new CustomerGuard(context);
  while (done < keys.length) {
    context.signal.throwIfAborted();
    const chunk = keys.slice(done, done + STRIPE_PAGE);
    const batch: SyncBatch = { customers: [], payments: [], deletedPayments: [] };
    const names = new Map<string, string>();
    for (const key of chunk) {
      const [kind, id] = key.split(':') as [string, string];
      try {
        if (kind === 'customer') {
          const customer = (await stripe.customers.retrieve(id)) as unknown as StripeCustomer;
          if (!customer.deleted) batch.customers?.push(customerOf(customer));
        } else if (kind === 'subscription') {
          const subscription = (await stripe.subscriptions.retrieve(id, { expand: ['discounts', 'latest_invoice'] })) as unknown as StripeSubscription;
          batch.payments?.push(...subscriptionPayments(catalogue, subscription));
        } else if (kind === 'invoice') {
          const invoice = (await stripe.invoices.retrieve(id, { expand: ['discounts'] })) as unknown as StripeInvoice;
          const customer = idOf(invoice.customer);
          if (customer && invoice.customer_name) names.set(customer, invoice.customer_name);
          const mapped = invoicePayments(catalogue, invoice, invoice.lines.has_more ? await linesOf(stripe, invoice) : invoice.lines.data);
          batch.payments?.push(...mapped.payments);
          batch.deletedPayments?.push(...mapped.deleted);
        }
      } catch (error) {
        // A draft invoice deleted since its event: nothing to read.
        if (!(error instanceof Stripe.errors.StripeInvalidRequestError && error.statusCode === 404)) throw error;
      }
    }
    await guard.complete(batch, names);
    done += chunk.length;
    await context.commit(batch, { cursor: { phase: 'events', done } });
  }
  await context.log('stripe_events_read', { objects: keys.length });
}

function connectedClient(secrets: Record<string, string>, config: JsonObject, urls: ProviderUrls, fetchFn: ProviderFetch): Stripe {
  const apiKey = secrets.access_token;
  if (!apiKey) throw new Error('Stripe is not connected; connect Stripe again in Settings');
  const account = secrets.stripe_user_id ?? (typeof config.stripe_account_id === 'string' ? config.stripe_account_id : null);
  return stripeClient({ apiUrl: urls.stripeApi, apiKey, fetch: fetchFn, stripeAccount: account });
}

export const stripeProvider: IntegrationProvider = {
  name: 'stripe',
  configurable: false,
  connect: 'oauth',
  // Stripe has no configuration dialog: it connects through /users/auth/stripe.
  parseConfig: () => [{ pointer: '/body', detail: 'Stripe connects through Stripe Connect, not a configuration' }],
  async verify(config, { urls, fetch: fetchFn }) {
    try {
      const stripe = connectedClient(config.secrets, config.config, urls, fetchFn);
      await stripe.accounts.retrieveCurrent();
    } catch (error) {
      throw new CannotConnectError('cannot_connect', stripeFailure(error).message);
    }
  },
  async sync(context) {
    const stripe = connectedClient(context.secrets, context.config, context.urls, context.fetch);
    try {
      const catalogue = await readCatalogue(stripe);
      if (context.mode === 'incremental' && context.since) await incrementalSync(context, stripe, catalogue, context.since);
      else await initialSync(context, stripe, catalogue);
    } catch (error) {
      if (context.signal.aborted) throw error;
      throw stripeFailure(error);
    }
  },
};
