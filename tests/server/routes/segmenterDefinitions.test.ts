import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ObjectAttribute } from '../../../models/attributes';
import {
  BUCKET_LAST_NOT_OPEN,
  BUCKET_MAX_BELOW_MIN,
  BUCKET_MAX_NOT_NUMBER,
  BUCKET_NOT_CONTIGUOUS,
  REQUIRED,
  SEGMENTATION_ATTRIBUTE_REQUIRED,
  SEGMENTATION_NAME_REQUIRED,
  SEGMENTATION_NAME_TOO_SHORT,
  SEGMENTATION_PRODUCT_REQUIRED,
  type SegmentationDefinition,
  type SegmenterTypeInfo,
} from '../../../models/segmentation';
import { addMonths, dayFromIso, isoFromDay } from '../../../server/metrics/days';
import { SEGMENTATION_NOT_FOUND } from '../../../server/segmentation/definitions';
import { createAuthTestApp, expectSignInRequired, problemsOf, sharedReportOnlyColleague, signUp, type AuthTestApp, type SignedUp } from '../auth/support';
import { testEngine } from '../helpers/database';

/** Segmentations over REST: types, list, read, create, update, delete, and a bucket segmentation splitting a chart. */

interface Section {
  id: string;
  definition_id: string;
  segment_ids: string[];
  segments: { id: string; name: string; is_total: boolean; series: { segment_value?: string; data_points: { time: string; value: number | null }[] }[] }[];
}

let harness: AuthTestApp;
let app: FastifyInstance;
let owner: SignedUp;
let stranger: SignedUp;
let seats: ObjectAttribute;
let channel: ObjectAttribute;

const api = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, who?: SignedUp, payload?: unknown) =>
  app.inject({ method, url: `/api/v11${url}`, headers: who ? { authorization: who.authorization } : {}, ...(payload === undefined ? {} : { payload: payload as object }) });

async function attribute(name: string, object: ObjectAttribute['object'], who: SignedUp = owner): Promise<ObjectAttribute> {
  const response = await api('POST', '/object_attributes', who, { name, object });
  expect(response.statusCode, response.body).toBe(201);
  return response.json() as ObjectAttribute;
}

async function create(input: unknown, who: SignedUp = owner): Promise<SegmentationDefinition> {
  const response = await api('POST', '/segmenter_definitions', who, input);
  expect(response.statusCode, response.body).toBe(201);
  return response.json() as SegmentationDefinition;
}

const SIZE_BUCKETS = [
  { name: 'Small', from: 0, to: 10 },
  { name: 'Medium', from: 11, to: 100 },
  { name: '> 100', from: 101, to: null },
];

beforeAll(async () => {
  harness = await createAuthTestApp();
  app = harness.app;
  owner = await signUp(app);
  stranger = await signUp(app);
  seats = await attribute('Seats', 'customer');
  channel = await attribute('Channel', 'subscription_history');
  // Five customers paying from June 2025 for a year; their seats: 5, 15, 250, 'n/a' and none.
  const db = harness.db.kysely;
  const account = owner.user.account_id;
  const customers = [
    ['c1', 10_000, '5'],
    ['c2', 5_000, '15'],
    ['c3', 3_000, '250'],
    ['c4', 2_000, 'n/a'],
    ['c5', 1_000, null],
  ] as const;
  await db.insertInto('products').values({ account_id: account, key: 'pro', name: 'Pro' }).execute();
  for (const [customer, monthly, value] of customers) {
    const payment = `subh0000000${customer}x`;
    await db.insertInto('customers').values({ account_id: account, id: customer, name: `Customer ${customer}`, public_id: null }).execute();
    await db
      .insertInto('payments')
      .values({ account_id: account, id: payment, customer_id: customer, started_at: '2025-06-01', ended_at: isoFromDay(addMonths(dayFromIso('2025-06-01'), 12)), duration_in_months: 12, total_value: monthly * 12, currency: 'USD', invoice_number: null, external_id: null, import_id: null })
      .execute();
    await db.insertInto('payment_items').values({ account_id: account, payment_id: payment, product_key: 'pro', type: 'recurring' }).execute();
    if (value !== null) await db.insertInto('customer_segment_values').values({ account_id: account, customer_id: customer, segment_id: seats.segment_id as string, year: 2025, month: 1, value }).execute();
  }
});
afterAll(() => harness?.close());

describe(`segmenter definitions on ${testEngine}`, () => {
  describe('GET /api/v11/segmenter_definitions/types', () => {
    it('lists one type per custom attribute and the payment built-ins', async () => {
      const response = await api('GET', '/segmenter_definitions/types', owner);
      expect(response.statusCode, response.body).toBe(200);
      const { items } = response.json() as { items: SegmenterTypeInfo[] };
      expect(items).toEqual([
        { name: 'customer_segment', label: 'Seats', group_label: 'Customer attributes', segment_id: seats.id, allowed_configuration: ['mappings', 'buckets'] },
        { name: 'subscription_segment', label: 'Product', group_label: 'Payment attributes', segment_id: 'product', allowed_configuration: ['products'] },
        { name: 'subscription_segment', label: 'Currency', group_label: 'Payment attributes', segment_id: 'currency', allowed_configuration: ['mappings'] },
        { name: 'subscription_segment', label: 'Item type', group_label: 'Payment attributes', segment_id: 'item_type', allowed_configuration: ['mappings'] },
        { name: 'subscription_segment', label: 'Channel', group_label: 'Payment attributes', segment_id: channel.id, allowed_configuration: ['mappings', 'buckets'] },
      ]);
    });

    it('needs a token and a full user', async () => {
      expectSignInRequired(await api('GET', '/segmenter_definitions/types'));
      const colleague = await sharedReportOnlyColleague(app, harness.db, owner);
      expect((await api('GET', '/segmenter_definitions/types', colleague)).statusCode).toBe(403);
    });
  });

  describe('POST /api/v11/segmenter_definitions', () => {
    it('creates a bucket segmentation of a customer attribute', async () => {
      const created = await create({ name: ' Company size ', type_name: 'customer_segment', segment_id: seats.id, buckets: SIZE_BUCKETS });
      expect(created).toMatchObject({ name: 'Company size', type_name: 'customer_segment', segment_id: seats.id, allowed_configuration: ['mappings', 'buckets'], mappings: [], buckets: SIZE_BUCKETS, products: [] });
      expect(created.id).toEqual(expect.any(String));
    });

    it('creates the built-ins: products for product, mappings for currency (configurations the type does not allow are dropped)', async () => {
      const product = await create({ name: 'Pro plans', type_name: 'subscription_segment', segment_id: 'product', products: ['pro'], mappings: [{ value: 'x', name: 'y' }] });
      expect(product).toMatchObject({ type_name: 'subscription_segment', segment_id: 'product', allowed_configuration: ['products'], products: ['pro'], mappings: [] });
      const currency = await create({ name: 'Currency zones', type_name: 'subscription_segment', segment_id: 'currency', mappings: [{ value: 'USD', name: 'Dollar' }] });
      expect(currency).toMatchObject({ segment_id: 'currency', mappings: [{ value: 'USD', name: 'Dollar' }], buckets: [] });
    });

    it.each([
      [{ name: '' }, [{ pointer: '/name', detail: SEGMENTATION_NAME_REQUIRED }]],
      [{ name: ' ab ' }, [{ pointer: '/name', detail: SEGMENTATION_NAME_TOO_SHORT }]],
      [{ segment_id: undefined }, [{ pointer: '/segment_id', detail: SEGMENTATION_ATTRIBUTE_REQUIRED }]],
      [{ segment_id: 'att-of-nobody' }, [{ pointer: '/segment_id', detail: SEGMENTATION_ATTRIBUTE_REQUIRED }]],
      [{ type_name: 'cost_segment' }, [{ pointer: '/segment_id', detail: SEGMENTATION_ATTRIBUTE_REQUIRED }]],
      [{ mappings: [{ value: ' ', name: 'Big' }] }, [{ pointer: '/mappings/0/value', detail: REQUIRED }]],
      [{ mappings: [{ value: '5', name: '' }] }, [{ pointer: '/mappings/0/name', detail: REQUIRED }]],
      [{ buckets: [{ name: 'A', from: 0, to: null }, { name: 'B', from: 1, to: null }] }, [{ pointer: '/buckets/0/to', detail: REQUIRED }]],
      [{ buckets: [{ name: 'A', from: 0, to: 1.5 }, { name: 'B', from: 2, to: null }] }, [{ pointer: '/buckets/0/to', detail: BUCKET_MAX_NOT_NUMBER }]],
      [{ buckets: [{ name: 'A', from: 0, to: 10 }, { name: 'B', from: 11, to: 5 }, { name: 'C', from: 6, to: null }] }, [{ pointer: '/buckets/1/to', detail: BUCKET_MAX_BELOW_MIN }]],
      [{ buckets: [{ name: 'A', from: 1, to: 10 }, { name: 'B', from: 12, to: null }] }, [{ pointer: '/buckets/0/from', detail: BUCKET_NOT_CONTIGUOUS }, { pointer: '/buckets/1/from', detail: BUCKET_NOT_CONTIGUOUS }]],
      [{ buckets: [{ name: 'A', from: 0, to: 10 }] }, [{ pointer: '/buckets/0/to', detail: BUCKET_LAST_NOT_OPEN }]],
    ])('refuses %j with 422 at the field', async (change, problems) => {
      const response = await api('POST', '/segmenter_definitions', owner, { name: 'Valid name', type_name: 'customer_segment', segment_id: seats.id, ...change });
      expect(response.statusCode, response.body).toBe(422);
      expect(problemsOf(response)).toEqual(problems);
    });

    it("refuses a product segmentation without a product: 'You must select a product to create this segmentation'", async () => {
      const response = await api('POST', '/segmenter_definitions', owner, { name: 'No product', type_name: 'subscription_segment', segment_id: 'product', products: [] });
      expect(response.statusCode).toBe(422);
      expect(problemsOf(response)).toEqual([{ pointer: '/products', detail: SEGMENTATION_PRODUCT_REQUIRED }]);
    });

    it('refuses another account’s attribute as if unknown, and a missing token', async () => {
      const theirs = await attribute('Their seats', 'customer', stranger);
      const response = await api('POST', '/segmenter_definitions', owner, { name: 'Borrowed', type_name: 'customer_segment', segment_id: theirs.id, mappings: [] });
      expect(problemsOf(response)).toEqual([{ pointer: '/segment_id', detail: SEGMENTATION_ATTRIBUTE_REQUIRED }]);
      expectSignInRequired(await api('POST', '/segmenter_definitions', undefined, { name: 'Anon', type_name: 'customer_segment', segment_id: seats.id }));
    });
  });

  describe('GET /api/v11/segmenter_definitions and /:id', () => {
    it('lists the account’s segmentations by name and reads one; another account sees none of them', async () => {
      const response = await api('GET', '/segmenter_definitions', owner);
      expect(response.statusCode).toBe(200);
      const { items } = response.json() as { items: SegmentationDefinition[] };
      const names = items.map((item) => item.name);
      expect(names).toEqual([...names].sort((a, b) => a.toLowerCase().localeCompare(b.toLowerCase())));
      const first = items[0] as SegmentationDefinition;
      expect((await api('GET', `/segmenter_definitions/${first.id}`, owner)).json()).toEqual(first);
      expect((await api('GET', '/segmenter_definitions', stranger)).json()).toEqual({ items: [] });
      const theirs = await api('GET', `/segmenter_definitions/${first.id}`, stranger);
      expect(theirs.statusCode).toBe(404);
      expect(problemsOf(theirs)).toEqual([{ pointer: undefined, detail: SEGMENTATION_NOT_FOUND }]);
      expectSignInRequired(await api('GET', '/segmenter_definitions'));
      expectSignInRequired(await api('GET', `/segmenter_definitions/${first.id}`));
    });
  });

  describe('PUT and DELETE /api/v11/segmenter_definitions/:id', () => {
    it('replaces a segmentation, 422 for a bad input, 404 for another account’s, 401 without a token', async () => {
      const created = await create({ name: 'Channels', type_name: 'subscription_segment', segment_id: channel.id, mappings: [{ value: 'web', name: 'Online' }] });
      const response = await api('PUT', `/segmenter_definitions/${created.id}`, owner, { name: 'Sales channels', type_name: 'subscription_segment', segment_id: channel.id, mappings: [{ value: 'shop', name: 'Offline' }] });
      expect(response.statusCode, response.body).toBe(200);
      expect(response.json()).toMatchObject({ id: created.id, name: 'Sales channels', mappings: [{ value: 'shop', name: 'Offline' }], created_at: created.created_at });
      const bad = await api('PUT', `/segmenter_definitions/${created.id}`, owner, { name: 'x', type_name: 'subscription_segment', segment_id: channel.id });
      expect(problemsOf(bad)).toEqual([{ pointer: '/name', detail: SEGMENTATION_NAME_TOO_SHORT }]);
      expect((await api('PUT', `/segmenter_definitions/${created.id}`, stranger, { name: 'Stolen', type_name: 'subscription_segment', segment_id: 'currency' })).statusCode).toBe(404);
      expectSignInRequired(await api('PUT', `/segmenter_definitions/${created.id}`, undefined, { name: 'Anon' }));
      expect((await api('DELETE', `/segmenter_definitions/${created.id}`, stranger)).statusCode).toBe(404);
      expectSignInRequired(await api('DELETE', `/segmenter_definitions/${created.id}`));
      expect((await api('DELETE', `/segmenter_definitions/${created.id}`, owner)).statusCode).toBe(204);
      expect((await api('GET', `/segmenter_definitions/${created.id}`, owner)).statusCode).toBe(404);
    });
  });

  describe('a bucket segmentation splitting a chart', () => {
    it('is offered to sections, splits MRR by bucket with Other for values outside, follows an update and leaves with a delete', async () => {
      const size = await create({ name: 'Seat buckets', type_name: 'customer_segment', segment_id: seats.id, buckets: SIZE_BUCKETS });
      const definitions = await api('GET', '/business_report/section_definitions', owner);
      const mrr = (definitions.json() as { items: { id: string; segmenters: { id: string; name: string; group_label: string }[] }[] }).items.find((d) => d.id === 'mrr');
      expect(mrr?.segmenters).toContainEqual(expect.objectContaining({ id: size.id, name: 'Seat buckets', group_label: 'Customer attributes' }));

      const created = await api('POST', '/business_reports', owner, { title: 'Sizes', sections: [{ definition_id: 'mrr' }] });
      expect(created.statusCode, created.body).toBe(201);
      const { secret } = created.json() as { secret: string };
      await app.reports.settled();
      const read = async () => ((await api('GET', `/business_reports/by_secret?secret=${secret}`, owner)).json() as { sections: Section[] }).sections[0] as Section;
      const put = await api('PUT', `/business_report/sections/${(await read()).id}`, owner, { segment_ids: [size.id] });
      expect(put.statusCode, put.body).toBe(200);
      await app.reports.settled();

      /** The latest value of each series of the segmentation's segment. */
      const latest = (section: Section, segmentId: string) =>
        Object.fromEntries((section.segments.find((s) => s.id === segmentId)?.series ?? []).map((serie) => [serie.segment_value, serie.data_points.at(-1)?.value]));
      const split = await read();
      expect(split.segments.find((s) => s.id === size.id)?.name).toBe('Seat buckets');
      expect(latest(split, size.id)).toEqual({ Small: 10_000, Medium: 5_000, '> 100': 3_000, Other: 3_000 });
      const total = split.segments.find((s) => s.is_total)?.series[0]?.data_points.at(-1)?.value;
      expect(total).toBe(21_000);

      // Moving the bucket edge moves 15 seats into the first bucket; the report is recalculated.
      const updated = await api('PUT', `/segmenter_definitions/${size.id}`, owner, {
        name: 'Seat buckets',
        type_name: 'customer_segment',
        segment_id: seats.id,
        buckets: [
          { name: 'Up to 20', from: 0, to: 20 },
          { name: 'More', from: 21, to: null },
        ],
      });
      expect(updated.statusCode, updated.body).toBe(200);
      await app.reports.settled();
      expect(latest(await read(), size.id)).toEqual({ 'Up to 20': 15_000, More: 3_000, Other: 3_000 });

      expect((await api('DELETE', `/segmenter_definitions/${size.id}`, owner)).statusCode).toBe(204);
      await app.reports.settled();
      const after = await read();
      expect(after.segment_ids).toEqual([]);
      expect(after.segments.map((s) => s.id)).toEqual(['total']);
    });
  });
});
