import type { Database } from '../db/database';
import { computeCustomerMetrics, type CustomerMetrics } from './customerMetrics';
import { dayFromInstant, isoFromDay } from './days';
import { computeSections } from './definitions/computeSection';
import { expandCustomRequests, isCustomRequest } from './definitions/custom';
import {
  costSegmenterId,
  CURRENCY_SEGMENTER_ID,
  customerSegmenterId,
  ITEM_TYPE_SEGMENTER_ID,
  paymentAttributeSegmenterId,
  PRODUCT_SEGMENTER_ID,
  sectionDefinitionsFor,
  TOTAL_SEGMENTER_ID,
  type AccountCatalogueInput,
  type SectionDefinitionItem,
} from './definitions/segmenters';
import type { SectionRequest, SectionResult, SegmenterRef } from './definitions/types';
import { computeDetails, customDetailsRequest, type DetailsRequest, type DetailsResult } from './details';
import { computeExplore, type ExploreRequest, type ExploreResult } from './explore';
import type { ReportFilter } from './filters';
import { expandSegmentationCriteria, segmentationIdsOf } from './segmentationFilters';
import { loadSnapshot } from './loadSnapshot';
import type { ValueBucket, ValueMapping } from './segments';
import type { AccountSnapshot } from './snapshot/columns';

/**
 * The metrics engine behind the API: account snapshots loaded once and kept in memory (an LRU
 * of a few accounts), and every computation scoped to one account. Any write to an account's
 * data must call `invalidate(accountId)`: it drops the local snapshot and NOTIFYs
 * `metrics_invalidate`, on which every server process listens (`start()`), so all processes
 * drop theirs and the next request reloads (from the account's stored snapshot copy when its
 * data has not changed since it was written: server/metrics/snapshotStore.ts).
 */
export const METRICS_INVALIDATE_CHANNEL = 'metrics_invalidate';
/** NOTIFY payload that drops every account (shared data changed, e.g. exchange rates). */
export const INVALIDATE_ALL = '*';
export const DEFAULT_SNAPSHOT_CACHE_SIZE = 4;

type WithoutToday<T> = Omit<T, 'today'> & { today?: string };

export interface MetricsServiceOptions {
  /** Accounts kept in memory (default 4). */
  capacity?: number;
  /** Today's date comes from this clock when a request does not give it. */
  now?: () => Date;
  /** How a snapshot is read (default loadSnapshot). */
  load?: (db: Database, accountId: string, extraCurrencies: readonly string[]) => Promise<AccountSnapshot>;
}

export interface MetricsService {
  getSnapshot(accountId: string, options?: { currencies?: readonly (string | null | undefined)[] }): Promise<AccountSnapshot>;
  /** Drops the account's snapshot here and, through NOTIFY, in every process. */
  invalidate(accountId: string): Promise<void>;
  /** Drops every account's snapshot here and in every process. */
  invalidateAll(): Promise<void>;
  /** Drops the account's snapshot in this process only. */
  dropLocal(accountId: string): void;
  /** Accounts whose snapshot is cached, least recently used first. */
  cachedAccounts(): string[];
  sections(accountId: string, requests: readonly WithoutToday<SectionRequest>[]): Promise<SectionResult[]>;
  details(accountId: string, request: WithoutToday<DetailsRequest>): Promise<DetailsResult>;
  explore(accountId: string, request: WithoutToday<ExploreRequest>): Promise<ExploreResult>;
  /** Null when the customer is not the account's. */
  customerMetrics(accountId: string, customerId: string, options?: { currency?: string | null; today?: string }): Promise<CustomerMetrics | null>;
  sectionDefinitions(accountId: string): Promise<SectionDefinitionItem[]>;
  /** LISTENs on the invalidation channel. */
  start(): Promise<void>;
  close(): Promise<void>;
}

interface Entry {
  snapshot: Promise<AccountSnapshot>;
  currencies: Set<string>;
  /** accounts.data_version read before the snapshot was loaded: the snapshot is at this version or later. */
  version: number;
}

const BUILT_IN = new Set([TOTAL_SEGMENTER_ID, PRODUCT_SEGMENTER_ID, ITEM_TYPE_SEGMENTER_ID, CURRENCY_SEGMENTER_ID]);
const isBuiltIn = (id: string) => BUILT_IN.has(id) || /^(customer_segment|cost_segment|subscription_segment):/.test(id);

export function createMetricsService(db: Database, options: MetricsServiceOptions = {}): MetricsService {
  const capacity = Math.max(1, options.capacity ?? DEFAULT_SNAPSHOT_CACHE_SIZE);
  const now = options.now ?? (() => new Date());
  // Writes of stored snapshot copies run in the background (loadSnapshot); close() waits for them.
  const storeWrites = new Set<Promise<boolean>>();
  const track = (write: Promise<boolean>) => {
    storeWrites.add(write);
    void write.finally(() => storeWrites.delete(write));
  };
  const load = options.load ?? ((database, accountId, extraCurrencies) => loadSnapshot(database, accountId, { extraCurrencies, onStoreWrite: track }));
  const cache = new Map<string, Entry>();
  let unlisten: (() => Promise<void>) | null = null;

  const today = () => isoFromDay(dayFromInstant(now()));

  function dropLocal(accountId: string): void {
    if (accountId === INVALIDATE_ALL) cache.clear();
    else cache.delete(accountId);
  }

  function hasRates(snapshot: AccountSnapshot, currency: string): boolean {
    const index = snapshot.currencies.index.get(currency);
    return currency === 'EUR' || (index !== undefined && snapshot.rates.perEur[index] !== null && snapshot.rates.perEur[index] !== undefined);
  }

  async function getSnapshot(accountId: string, request: { currencies?: readonly (string | null | undefined)[] } = {}): Promise<AccountSnapshot> {
    const wanted = (request.currencies ?? []).filter((c): c is string => typeof c === 'string' && /^[A-Z]{3}$/.test(c));
    // A cached snapshot is used only at the account's current data version: a write this
    // process was not told of (a notification not yet heard, a write outside the app) is
    // never answered with the numbers from before it.
    const version = await dataVersion(accountId);
    let entry = cache.get(accountId);
    if (entry && entry.version !== version) {
      cache.delete(accountId);
      entry = undefined;
    }
    if (entry) {
      const snapshot = await entry.snapshot;
      const missing = wanted.filter((c) => c !== snapshot.account.currency && !hasRates(snapshot, c) && !entry?.currencies.has(c));
      if (missing.length === 0) {
        // Most recently used last.
        cache.delete(accountId);
        cache.set(accountId, entry);
        return snapshot;
      }
      if (cache.get(accountId) === entry) cache.delete(accountId);
      wanted.push(...entry.currencies);
    }
    const currencies = new Set(wanted);
    entry = { snapshot: load(db, accountId, [...currencies]), currencies, version };
    cache.set(accountId, entry);
    while (cache.size > capacity) cache.delete(cache.keys().next().value as string);
    const mine = entry;
    try {
      return await mine.snapshot;
    } catch (error) {
      if (cache.get(accountId) === mine) cache.delete(accountId);
      throw error;
    }
  }

  async function dataVersion(accountId: string): Promise<number> {
    const row = await db.kysely.selectFrom('accounts').select('data_version').where('id', '=', accountId).executeTakeFirst();
    return Number(row?.data_version ?? 0);
  }

  /** Segmenter ids of the account's own segmentations, expanded into references. */
  async function expandSegmenters<T extends { segmenters?: readonly (string | SegmenterRef)[] }>(accountId: string, requests: readonly T[]): Promise<T[]> {
    const own = new Set(requests.flatMap((r) => (r.segmenters ?? []).filter((s): s is string => typeof s === 'string' && !isBuiltIn(s))));
    if (own.size === 0) return [...requests];
    const refs = await segmentationRefs(accountId, [...own]);
    return requests.map((r) => ({ ...r, segmenters: r.segmenters?.map((s) => (typeof s === 'string' ? (refs.get(s) ?? s) : s)) }));
  }

  /**
   * Requests whose filters name segmentation groups, with those criteria expanded (filters.ts
   * `expandSegmentationCriteria`) against the account's segmentations and the snapshot. Requests
   * sharing one filter object keep sharing its expansion.
   */
  async function expandFilters<T extends { filter?: ReportFilter | null }>(accountId: string, snapshot: AccountSnapshot, requests: readonly T[]): Promise<T[]> {
    const ids = new Set<string>();
    for (const r of requests) segmentationIdsOf(r.filter, ids);
    if (ids.size === 0) return [...requests];
    const refs = await segmentationRefs(accountId, [...ids]);
    const expanded = new Map<ReportFilter, ReportFilter>();
    return requests.map((r) => {
      if (!r.filter) return r;
      let filter = expanded.get(r.filter);
      if (!filter) {
        filter = expandSegmentationCriteria(snapshot, r.filter, refs);
        expanded.set(r.filter, filter);
      }
      return filter === r.filter ? r : { ...r, filter };
    });
  }

  async function segmentationRefs(accountId: string, ids?: readonly string[]): Promise<Map<string, SegmenterRef>> {
    const rows = await db.kysely
      .selectFrom('segmenter_definitions')
      .select(['id', 'name', 'type_name', 'object_attribute_id', 'mappings', 'buckets', 'products'])
      .where('account_id', '=', accountId)
      .$if(ids !== undefined, (q) => q.where('id', 'in', ids as string[]))
      .orderBy('name')
      .execute();
    const segments = await db.kysely.selectFrom('customer_segments').select(['id', 'object_attribute_id']).where('account_id', '=', accountId).execute();
    const segmentOfAttribute = new Map(segments.map((s) => [s.object_attribute_id, s.id]));
    const out = new Map<string, SegmenterRef>();
    for (const row of rows) {
      const base = segmentationBase(row.type_name, row.object_attribute_id, row.products, segmentOfAttribute);
      if (!base) continue;
      out.set(row.id, {
        id: row.id,
        name: row.name,
        base,
        mappings: (row.mappings as unknown as ValueMapping[]) ?? [],
        buckets: (row.buckets as unknown as ValueBucket[]) ?? [],
        products: row.products,
      });
    }
    return out;
  }

  const withToday = <T extends { today?: string }>(request: T): T & { today: string } => ({ ...request, today: request.today ?? today() });

  return {
    getSnapshot,
    dropLocal,
    cachedAccounts: () => [...cache.keys()],
    async invalidate(accountId) {
      dropLocal(accountId);
      await db.notify(METRICS_INVALIDATE_CHANNEL, accountId);
    },
    async invalidateAll() {
      dropLocal(INVALIDATE_ALL);
      await db.notify(METRICS_INVALIDATE_CHANNEL, INVALIDATE_ALL);
    },
    async sections(accountId, requests) {
      // A custom section is computed as one catalogue request per series (definitions/custom.ts), whose segmentations expand like any.
      const { flat, assemble } = expandCustomRequests(requests.map(withToday));
      const expanded = await expandSegmenters(accountId, flat);
      const snapshot = await getSnapshot(accountId, { currencies: requests.map((r) => r.currency ?? r.report_settings?.currency) });
      return assemble(snapshot, computeSections(snapshot, await expandFilters(accountId, snapshot, expanded))) as SectionResult[];
    },
    async details(accountId, request) {
      const snapshot = await getSnapshot(accountId, { currencies: [request.currency ?? request.report_settings?.currency] });
      const custom = isCustomRequest(withToday(request)) ? customDetailsRequest(snapshot, withToday(request)) : null;
      const [expanded] = await expandSegmenters(accountId, [custom ? custom.inner : request]);
      const [filtered] = await expandFilters(accountId, snapshot, [expanded as typeof request]);
      const result = computeDetails(snapshot, withToday(filtered as typeof request));
      return custom ? custom.finish(result) : result;
    },
    async explore(accountId, request) {
      const [expanded] = await expandSegmenters(accountId, [request]);
      const snapshot = await getSnapshot(accountId, { currencies: [request.currency ?? request.report_settings?.currency] });
      const [filtered] = await expandFilters(accountId, snapshot, [expanded as typeof request]);
      return computeExplore(snapshot, withToday(filtered as typeof request));
    },
    async customerMetrics(accountId, customerId, metricsOptions = {}) {
      const snapshot = await getSnapshot(accountId, { currencies: [metricsOptions.currency] });
      return computeCustomerMetrics(snapshot, customerId, { today: metricsOptions.today ?? today(), currency: metricsOptions.currency ?? null });
    },
    async sectionDefinitions(accountId) {
      const [segments, attributes, segmentations, deal] = await Promise.all([
        db.kysely.selectFrom('customer_segments').select(['id', 'name']).where('account_id', '=', accountId).orderBy('name').orderBy('id').execute(),
        db.kysely.selectFrom('object_attributes').select(['id', 'name', 'object']).where('account_id', '=', accountId).where('object', 'in', ['subscription_history', 'cost']).orderBy('name').orderBy('id').execute(),
        segmentationRefs(accountId),
        db.kysely.selectFrom('deals').select('id').where('account_id', '=', accountId).limit(1).executeTakeFirst(),
      ]);
      const input: AccountCatalogueInput = {
        customerSegments: segments,
        paymentAttributes: attributes.filter((a) => a.object === 'subscription_history'),
        costAttributes: attributes.filter((a) => a.object === 'cost'),
        segmentations: [...segmentations.values()].map((s) => ({ id: s.id, name: s.name ?? s.id, base: s.base ?? s.id })),
        hasDeals: deal !== undefined,
      };
      return sectionDefinitionsFor(input);
    },
    async start() {
      if (unlisten) return;
      unlisten = await db.listen(METRICS_INVALIDATE_CHANNEL, (payload) => dropLocal(payload));
    },
    async close() {
      const stop = unlisten;
      unlisten = null;
      cache.clear();
      if (stop) await stop();
      await Promise.all([...storeWrites]);
    },
  };
}

/** The built-in segmenter a segmentation (segmenter_definitions row) groups; null when it names nothing known. */
export function segmentationBase(typeName: string, attributeId: string | null, products: readonly string[], segmentOfAttribute: ReadonlyMap<string, string>): string | null {
  switch (typeName) {
    case 'customer_segment': {
      const segment = attributeId ? segmentOfAttribute.get(attributeId) : undefined;
      return segment ? customerSegmenterId(segment) : null;
    }
    case 'subscription_segment':
      if (attributeId) return paymentAttributeSegmenterId(attributeId);
      return products.length > 0 ? PRODUCT_SEGMENTER_ID : null;
    case 'cost_segment':
      return attributeId ? costSegmenterId(attributeId) : null;
    case 'product':
      return PRODUCT_SEGMENTER_ID;
    case 'item_type':
      return ITEM_TYPE_SEGMENTER_ID;
    case 'currency':
      return CURRENCY_SEGMENTER_ID;
    default:
      return null;
  }
}
