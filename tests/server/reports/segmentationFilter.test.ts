import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_PREFIX } from '../../../server/version';
import { UNKNOWN_FILTER_SEGMENT, UNKNOWN_FILTER_SEGMENT_GROUP } from '../../../server/reports/reportFilters';
import { filterQuery, type FilterItem, type ReportViewFilter } from '../../../models/reportFilter';
import { SEGMENTATION_SEGMENT_PREFIX } from '../../../models/segmentation';
import { createAuthTestApp, errorsOf, expectSignInRequired, signUp, type AuthTestApp, type SignedUp } from '../auth/support';
import { testEngine } from '../helpers/database';
import { importPlanPayments, uploadCsv } from '../helpers/planAccount';

/**
 * Filtering a report, and pinning a share link, by a group of a user-made segmentation
 * (docs/segmentation.md): the picker lists every group of every segmentation (and 'Other'), a
 * filtered report equals the sum of the matching customers' MRR (checked against the same
 * customers picked by their raw attribute values, and against the section split by the
 * segmentation), a negated group is the complement, and a share link pinned to a group shows
 * only that group. The test clock's today is 2026-03-02: reports show 2025-04 to 2026-03
 * (index 6 is October 2025, when every customer pays).
 */

interface Point {
  time: string;
  value: number | null;
}
interface Series {
  name: string;
  segment_value?: string;
  data_points: Point[];
}
interface Section {
  id: string;
  definition_id: string;
  segments: { id: string; is_total: boolean; series: Series[] }[];
}
interface Report {
  id: string;
  secret: string;
  filter: ReportViewFilter | null;
  filtered_segmenter_name: string | null;
  filtered_segment_value: string | null;
  sections: Section[];
  shared_filter?: { segmenter_id: string; segmenter_name: string | null; segment_value: string } | null;
}
interface ListedValue {
  id: string;
  name: string;
  value: string;
}

let harness: AuthTestApp;
let app: FastifyInstance;
let owner: SignedUp;
let stranger: SignedUp;
let report: { id: string; secret: string };
let mrrSectionId: string;
/** Customer segments (customer_segments.id) of the owner's attributes. */
let seatsSegment: string;
let tierSegment: string;
/** Segmentation ids. */
let seatsSizes: string;
let tierGroups: string;
let proOnly: string;
let costGroups: string;
let strangerSegmentation: string;

const SEATS_SIZES = 'Seats sizes';
const TIER_GROUPS = 'Tier groups';
const PRO_ONLY = 'Pro products';
const OCTOBER = 6;

const api = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, who?: SignedUp, payload?: unknown) =>
  app.inject({ method, url: `${API_PREFIX}${url}`, headers: who ? { authorization: who.authorization } : {}, ...(payload === undefined ? {} : { payload: payload as object }) });

/** A customer attribute made through the API, with its values imported; answers its customer segment. */
async function customerAttribute(who: SignedUp, name: string, values: string[]): Promise<{ attributeId: string; segmentId: string }> {
  const created = await api('POST', '/object_attributes', who, { name, object: 'customer' });
  expect(created.statusCode, created.body).toBe(201);
  const { id, segment_id } = created.json() as { id: string; segment_id: string };
  const draft = await uploadCsv(harness, who, '/segments_importer/draft', 'csv', ['customer,value', ...values].join('\n'));
  const finalized = await api('POST', '/segments_importer/finalize', who, { import_id: draft, public_id_column_index: 0, segment_column_index: 1, skip_headers: true, customer_segment_id: segment_id });
  expect(finalized.statusCode, finalized.body).toBe(200);
  await app.imports.settled();
  return { attributeId: id, segmentId: segment_id };
}

async function segmentation(who: SignedUp, input: object): Promise<string> {
  const response = await api('POST', '/segmenter_definitions', who, input);
  expect(response.statusCode, response.body).toBe(201);
  return (response.json() as { id: string }).id;
}

async function bySecret(secret: string): Promise<Report> {
  const response = await api('GET', `/business_reports/by_secret?secret=${secret}`, owner);
  expect(response.statusCode, response.body).toBe(200);
  return response.json() as Report;
}

const group = (segmentationId: string, value: string, negated = false): FilterItem => ({ type: 'segment', id: `${SEGMENTATION_SEGMENT_PREFIX}${segmentationId}`, name: '', value, negated });
const raw = (segmentId: string, value: string, negated = false): FilterItem => ({ type: 'segment', id: `customer_segment:${segmentId}`, name: '', value, negated });
const queryOf = (item: FilterItem) => new URLSearchParams(filterQuery(item) as Record<string, string>).toString();

async function filtered(item: FilterItem): Promise<{ sections: Section[]; filter: FilterItem }> {
  const response = await api('GET', `/business_reports/by_secret_filtered?secret=${report.secret}&${queryOf(item)}`, owner);
  expect(response.statusCode, response.body).toBe(200);
  return response.json() as { sections: Section[]; filter: FilterItem };
}

const mrrOf = (sections: Section[]) => sections.find((s) => s.definition_id === 'mrr');
const totalOf = (section: Section | undefined): number[] => section?.segments.find((s) => s.is_total)?.series[0]?.data_points.map((p) => p.value ?? 0) ?? [];
const seriesOf = (section: Section | undefined, segmenter: string, value: string): number[] =>
  section?.segments.find((s) => s.id === segmenter)?.series.find((s) => s.segment_value === value)?.data_points.map((p) => p.value ?? 0) ?? [];
const sum = (...series: number[][]) => (series[0] ?? []).map((_v, k) => series.reduce((total, s) => total + (s[k] ?? 0), 0));
const filteredMrr = async (item: FilterItem) => totalOf(mrrOf((await filtered(item)).sections));

beforeAll(async () => {
  harness = await createAuthTestApp();
  app = harness.app;
  owner = await signUp(app, { name: 'Ada Owner' });
  stranger = await signUp(app);
  // c1 pro $100 from June 2025, c2 pro $50 Sep-Nov, c3 basic $30 from October, c4 basic $20 from July, c5 basic $10 from August.
  await importPlanPayments(harness, owner, ['c1,i1,2025-06-01,12,100,One,pro,1', 'c2,i2,2025-09-01,3,50,Two,pro,1', 'c3,i3,2025-10-01,12,30,Three,basic,1', 'c4,i4,2025-07-01,12,20,Four,basic,1', 'c5,i5,2025-08-01,12,10,Five,basic,1']);
  // Seats: c1 12, c2 3, c3 40, c4 none, c5 'many' (not a number).
  const seats = await customerAttribute(owner, 'Seats', ['c1,12', 'c2,3', 'c3,40', 'c5,many']);
  seatsSegment = seats.segmentId;
  // Tier: c1 gold, c2 silver, c3 bronze, c4 trial (not mapped), c5 none.
  const tier = await customerAttribute(owner, 'Tier', ['c1,gold', 'c2,silver', 'c3,bronze', 'c4,trial']);
  tierSegment = tier.segmentId;
  seatsSizes = await segmentation(owner, {
    name: SEATS_SIZES,
    type_name: 'customer_segment',
    segment_id: seats.attributeId,
    buckets: [
      { name: 'Small', from: 0, to: 10 },
      { name: 'Medium', from: 11, to: 20 },
      { name: 'Large', from: 21, to: null },
    ],
  });
  tierGroups = await segmentation(owner, {
    name: TIER_GROUPS,
    type_name: 'customer_segment',
    segment_id: tier.attributeId,
    mappings: [
      { value: 'gold', name: 'Premium' },
      { value: 'silver', name: 'Premium' },
      { value: 'bronze', name: 'Standard' },
    ],
  });
  proOnly = await segmentation(owner, { name: PRO_ONLY, type_name: 'subscription_segment', segment_id: 'product', products: ['pro'] });
  const cost = await api('POST', '/object_attributes', owner, { name: 'Department', object: 'cost' });
  expect(cost.statusCode, cost.body).toBe(201);
  costGroups = await segmentation(owner, { name: 'Departments', type_name: 'cost_segment', segment_id: (cost.json() as { id: string }).id, mappings: [{ value: 'r&d', name: 'Engineering' }] });

  const created = await api('POST', '/business_reports', owner, { title: 'By segmentation', sections: [{ definition_id: 'mrr' }, { definition_id: 'customers' }] });
  expect(created.statusCode, created.body).toBe(201);
  report = created.json() as { id: string; secret: string };
  await app.reports.settled();
  mrrSectionId = mrrOf((await bySecret(report.secret)).sections)?.id ?? '';
  const split = await api('PUT', `/business_report/sections/${mrrSectionId}`, owner, { segment_ids: [seatsSizes, tierGroups] });
  expect(split.statusCode, split.body).toBe(200);
  await app.reports.settled();

  await importPlanPayments(harness, stranger, ['s1,j1,2025-06-01,12,70,Alien,pro,1']);
  const strangerTier = await customerAttribute(stranger, 'Tier', ['s1,gold']);
  strangerSegmentation = await segmentation(stranger, { name: 'Alien tiers', type_name: 'customer_segment', segment_id: strangerTier.attributeId, mappings: [{ value: 'gold', name: 'Premium' }] });
});
afterAll(() => harness?.close());

describe(`filtering by a segmentation group on ${testEngine}`, () => {
  it('lists every group of the account’s segmentations (Other included, cost segmentations left out) beside the raw values, matched on value or name', async () => {
    const list = async (query = '') => {
      const response = await api('GET', `/business_report_segment_values/by_secret?secret=${report.secret}&query=${encodeURIComponent(query)}`, owner);
      expect(response.statusCode, response.body).toBe(200);
      return (response.json() as { items: ListedValue[] }).items;
    };
    const all = await list();
    const sizes = `${SEGMENTATION_SEGMENT_PREFIX}${seatsSizes}`;
    const tiers = `${SEGMENTATION_SEGMENT_PREFIX}${tierGroups}`;
    const pro = `${SEGMENTATION_SEGMENT_PREFIX}${proOnly}`;
    expect(all.filter((item) => item.id.startsWith(SEGMENTATION_SEGMENT_PREFIX))).toEqual([
      { id: pro, name: PRO_ONLY, value: 'Other' },
      { id: pro, name: PRO_ONLY, value: 'pro' },
      { id: sizes, name: SEATS_SIZES, value: 'Large' },
      { id: sizes, name: SEATS_SIZES, value: 'Medium' },
      { id: sizes, name: SEATS_SIZES, value: 'Other' },
      { id: sizes, name: SEATS_SIZES, value: 'Small' },
      { id: tiers, name: TIER_GROUPS, value: 'Other' },
      { id: tiers, name: TIER_GROUPS, value: 'Premium' },
      { id: tiers, name: TIER_GROUPS, value: 'Standard' },
    ]);
    // The raw values are still there, and nothing of another account or of a cost segmentation.
    expect(all).toContainEqual({ id: `customer_segment:${tierSegment}`, name: 'Tier', value: 'gold' });
    expect(all.some((item) => item.name === 'Departments' || item.id.endsWith(strangerSegmentation) || item.id.endsWith(costGroups))).toBe(false);
    // Same text search as the other items: on the group's name or the segmentation's name, ignoring case.
    expect((await list('PREM')).map((item) => [item.name, item.value])).toEqual([[TIER_GROUPS, 'Premium']]);
    expect((await list('seats siz')).map((item) => item.value)).toEqual(['Large', 'Medium', 'Other', 'Small']);
    expect((await list('zzz')).length).toBe(0);
    // The stranger's report lists the stranger's segmentation only.
    const strangerReport = await api('POST', '/business_reports', stranger, { title: 'Alien', sections: [{ definition_id: 'mrr' }] });
    const strangerSecret = (strangerReport.json() as { secret: string }).secret;
    await app.reports.settled();
    const strangerList = (await api('GET', `/business_report_segment_values/by_secret?secret=${strangerSecret}`, stranger)).json() as { items: ListedValue[] };
    expect(strangerList.items.filter((item) => item.id.startsWith(SEGMENTATION_SEGMENT_PREFIX)).map((item) => [item.name, item.value])).toEqual([
      ['Alien tiers', 'Other'],
      ['Alien tiers', 'Premium'],
    ]);
    expectSignInRequired(await api('GET', `/business_report_segment_values/by_secret?secret=${report.secret}`));
  });

  it('filters by a bucket group: the MRR of the customers whose number falls in it; Other is the rest (no value, not a number)', async () => {
    const plain = mrrOf((await bySecret(report.secret)).sections);
    const small = await filtered(group(seatsSizes, 'Small'));
    expect(small.filter).toEqual({ type: 'segment', id: `${SEGMENTATION_SEGMENT_PREFIX}${seatsSizes}`, name: SEATS_SIZES, value: 'Small', negated: false });
    const smallMrr = totalOf(mrrOf(small.sections));
    const mediumMrr = await filteredMrr(group(seatsSizes, 'Medium'));
    const largeMrr = await filteredMrr(group(seatsSizes, 'Large'));
    const otherMrr = await filteredMrr(group(seatsSizes, 'Other'));
    // Small: c2 (3 seats); Medium: c1 (12); Large: c3 (40); Other: c4 (none) and c5 ('many').
    expect(smallMrr).toEqual(await filteredMrr(raw(seatsSegment, '3')));
    expect(mediumMrr).toEqual(await filteredMrr(raw(seatsSegment, '12')));
    expect(largeMrr).toEqual(await filteredMrr(raw(seatsSegment, '40')));
    expect([smallMrr[OCTOBER], mediumMrr[OCTOBER], largeMrr[OCTOBER], otherMrr[OCTOBER]]).toEqual([5_000, 10_000, 3_000, 3_000]);
    expect(sum(smallMrr, mediumMrr, largeMrr, otherMrr)).toEqual(totalOf(plain));
    // The same numbers as the section split by the segmentation.
    for (const [name, series] of [['Small', smallMrr], ['Medium', mediumMrr], ['Large', largeMrr], ['Other', otherMrr]] as const) expect(series).toEqual(seriesOf(plain, seatsSizes, name));
    // Negated: everything else, Other included.
    const notSmall = await filteredMrr(group(seatsSizes, 'Small', true));
    expect(notSmall).toEqual(sum(mediumMrr, largeMrr, otherMrr));
    const notOther = await filteredMrr(group(seatsSizes, 'Other', true));
    expect(notOther).toEqual(sum(smallMrr, mediumMrr, largeMrr));
    // The customers section is filtered too: in October, Other has c4 and c5.
    expect(totalOf((await filtered(group(seatsSizes, 'Other'))).sections.find((s) => s.definition_id === 'customers'))[OCTOBER]).toBe(2);
  });

  it('filters by a mapping group: the customers whose value maps to it; Other holds unmapped values and customers without one', async () => {
    const plain = mrrOf((await bySecret(report.secret)).sections);
    const premium = await filteredMrr(group(tierGroups, 'Premium'));
    expect(premium).toEqual(sum(await filteredMrr(raw(tierSegment, 'gold')), await filteredMrr(raw(tierSegment, 'silver'))));
    expect(premium[OCTOBER]).toBe(15_000);
    const standard = await filteredMrr(group(tierGroups, 'Standard'));
    expect(standard).toEqual(await filteredMrr(raw(tierSegment, 'bronze')));
    const other = await filteredMrr(group(tierGroups, 'Other'));
    // c4 (trial, not mapped) and c5 (no tier): trial's MRR plus what no tier value covers.
    expect(other[OCTOBER]).toBe(3_000);
    expect(other).toEqual(sum(await filteredMrr(raw(tierSegment, 'trial')), await filteredMrr(raw(seatsSegment, 'many'))));
    expect(sum(premium, standard, other)).toEqual(totalOf(plain));
    expect(premium).toEqual(seriesOf(plain, tierGroups, 'Premium'));
    expect(await filteredMrr(group(tierGroups, 'Premium', true))).toEqual(sum(standard, other));
  });

  it('filters by a product segmentation group on payment lines', async () => {
    const pro = await filteredMrr(group(proOnly, 'pro'));
    expect(pro).toEqual(await filteredMrr({ type: 'product', product_key: 'pro', negated: false }));
    expect(await filteredMrr(group(proOnly, 'Other'))).toEqual(await filteredMrr({ type: 'product', product_key: 'pro', negated: true }));
  });

  it('takes a group in a section’s details, and refuses an unknown group or segmentation with a 422 naming the parameter', async () => {
    const premium = await filteredMrr(group(tierGroups, 'Premium'));
    const details = await api('GET', `/business_report/sections/${mrrSectionId}/details?date=2025-10-01&${queryOf(group(tierGroups, 'Premium'))}`, owner);
    expect(details.statusCode, details.body).toBe(200);
    expect((details.json() as { items: { details: { total_value: number; total_count: number } }[] }).items[0]?.details).toMatchObject({ total_value: premium[OCTOBER], total_count: 2 });
    const unknownGroup = await api('GET', `/business_reports/by_secret_filtered?secret=${report.secret}&${queryOf(group(tierGroups, 'Gold'))}`, owner);
    expect(unknownGroup.statusCode).toBe(422);
    expect(errorsOf(unknownGroup)[0]).toMatchObject({ detail: UNKNOWN_FILTER_SEGMENT_GROUP, source: { pointer: '/querystring/filter_segment_value' } });
    for (const id of [strangerSegmentation, costGroups, 'nosuch']) {
      const response = await api('GET', `/business_reports/by_secret_filtered?secret=${report.secret}&${queryOf(group(id, 'Premium'))}`, owner);
      expect(response.statusCode, id).toBe(422);
      expect(errorsOf(response)[0]).toMatchObject({ detail: UNKNOWN_FILTER_SEGMENT, source: { pointer: '/querystring/filter_segmenter_id' } });
    }
  });

  it('saves a report view filtered by a group; its sections are that group’s numbers', async () => {
    const large = await filteredMrr(group(seatsSizes, 'Large'));
    const view: ReportViewFilter = { operator: 'and', arguments: [group(seatsSizes, 'Large')] };
    const saved = await api('PUT', `/business_reports/${report.id}`, owner, { filter: view });
    expect(saved.statusCode, saved.body).toBe(200);
    expect(saved.json()).toMatchObject({ filter: { operator: 'and', arguments: [{ ...group(seatsSizes, 'Large'), name: SEATS_SIZES }] }, filtered_segmenter_name: SEATS_SIZES, filtered_segment_value: 'Large' });
    await app.reports.settled();
    expect(totalOf(mrrOf((await bySecret(report.secret)).sections))).toEqual(large);
    // A view and a picked item: Large AND Premium is nobody (c3 is Standard); Large AND Standard is c3.
    expect((await filteredMrr(group(tierGroups, 'Premium'))).every((v) => v === 0)).toBe(true);
    expect(await filteredMrr(group(tierGroups, 'Standard'))).toEqual(large);
    const refused = await api('PUT', `/business_reports/${report.id}`, owner, { filter: { operator: 'and', arguments: [group(seatsSizes, 'Huge')] } });
    expect(refused.statusCode).toBe(422);
    expect(errorsOf(refused)[0]).toMatchObject({ detail: UNKNOWN_FILTER_SEGMENT_GROUP, source: { pointer: '/filter/arguments/0/value' } });
    const cleared = await api('PUT', `/business_reports/${report.id}`, owner, { filter: null });
    expect(cleared.statusCode, cleared.body).toBe(200);
    await app.reports.settled();
  });

  it('pins a share link to a group: the link shows only that group; an unknown group or another account’s segmentation is refused', async () => {
    const premium = await filteredMrr(group(tierGroups, 'Premium'));
    const segmenterId = `${SEGMENTATION_SEGMENT_PREFIX}${tierGroups}`;
    const created = await api('POST', `/business_reports/${report.id}/share_secret`, owner, { segmenter_id: segmenterId, segment_value: 'Premium' });
    expect(created.statusCode, created.body).toBe(201);
    const link = created.json() as { secret: string; segmenter_id: string; segmenter_name: string; segment_value: string };
    expect(link).toMatchObject({ segmenter_id: segmenterId, segmenter_name: TIER_GROUPS, segment_value: 'Premium' });
    const listed = (await api('GET', `/business_reports/${report.id}/share_secrets`, owner)).json() as { items: { secret: string; segmenter_name: string | null }[] };
    expect(listed.items.find((item) => item.secret === link.secret)?.segmenter_name).toBe(TIER_GROUPS);

    const seen = await api('GET', `/business_reports/by_shared_secret?secret=${link.secret}`);
    expect(seen.statusCode, seen.body).toBe(200);
    const shared = seen.json() as Report;
    expect(shared.shared_filter).toEqual({ segmenter_id: segmenterId, segmenter_name: TIER_GROUPS, segment_value: 'Premium' });
    expect(totalOf(mrrOf(shared.sections))).toEqual(premium);
    expect(totalOf(mrrOf(shared.sections))[OCTOBER]).toBe(15_000);
    // 'Other' can be pinned too.
    const other = await api('POST', `/business_reports/${report.id}/share_secret`, owner, { segmenter_id: `${SEGMENTATION_SEGMENT_PREFIX}${seatsSizes}`, segment_value: 'Other' });
    expect(other.statusCode, other.body).toBe(201);
    const otherSeen = (await api('GET', `/business_reports/by_shared_secret?secret=${(other.json() as { secret: string }).secret}`)).json() as Report;
    expect(totalOf(mrrOf(otherSeen.sections))).toEqual(await filteredMrr(group(seatsSizes, 'Other')));

    const count = async () => ((await api('GET', `/business_reports/${report.id}/share_secrets`, owner)).json() as { items: unknown[] }).items.length;
    const before = await count();
    for (const [body, pointer, detail] of [
      [{ segmenter_id: segmenterId, segment_value: 'Gold' }, '/segment_value', UNKNOWN_FILTER_SEGMENT_GROUP],
      [{ segmenter_id: `${SEGMENTATION_SEGMENT_PREFIX}${strangerSegmentation}`, segment_value: 'Premium' }, '/segmenter_id', UNKNOWN_FILTER_SEGMENT],
      [{ segmenter_id: `${SEGMENTATION_SEGMENT_PREFIX}${costGroups}`, segment_value: 'Engineering' }, '/segmenter_id', UNKNOWN_FILTER_SEGMENT],
      [{ segmenter_id: `${SEGMENTATION_SEGMENT_PREFIX}nosuch`, segment_value: 'Premium' }, '/segmenter_id', UNKNOWN_FILTER_SEGMENT],
      [{ segmenter_id: SEGMENTATION_SEGMENT_PREFIX, segment_value: 'Premium' }, '/segmenter_id', UNKNOWN_FILTER_SEGMENT],
    ] as const) {
      const response = await api('POST', `/business_reports/${report.id}/share_secret`, owner, body);
      expect(response.statusCode, JSON.stringify(body)).toBe(422);
      expect(errorsOf(response)[0], JSON.stringify(body)).toMatchObject({ detail, source: { pointer } });
    }
    expect(await count()).toBe(before);
    // Another account's report: 404, as for any pin.
    expect((await api('POST', `/business_reports/${report.id}/share_secret`, stranger, { segmenter_id: segmenterId, segment_value: 'Premium' })).statusCode).toBe(404);
    expectSignInRequired(await api('POST', `/business_reports/${report.id}/share_secret`, undefined, { segmenter_id: segmenterId, segment_value: 'Premium' }));
  });

  it('an edited segmentation regroups at once: a filtered answer and a link pinned to a group show the new groups, not a cached copy', async () => {
    const halves = await segmentation(owner, {
      name: 'Seats halves',
      type_name: 'customer_segment',
      segment_id: (await api('GET', '/object_attributes', owner)).json().items.find((a: { name: string }) => a.name === 'Seats').id,
      buckets: [
        { name: 'Few', from: 0, to: 10 },
        { name: 'Many', from: 11, to: null },
      ],
    });
    const many = { ...group(halves, 'Many'), id: `${SEGMENTATION_SEGMENT_PREFIX}${halves}` };
    const pinned = await api('POST', `/business_reports/${report.id}/share_secret`, owner, { segmenter_id: many.id, segment_value: 'Many' });
    expect(pinned.statusCode, pinned.body).toBe(201);
    const sharedMrr = async () => totalOf(mrrOf(((await api('GET', `/business_reports/by_shared_secret?secret=${(pinned.json() as { secret: string }).secret}`)).json() as Report).sections));
    // Many: c1 (12 seats) and c3 (40), read once so the answers are cached.
    const before = sum(await filteredMrr(raw(seatsSegment, '12')), await filteredMrr(raw(seatsSegment, '40')));
    expect(await filteredMrr(many)).toEqual(before);
    expect(await sharedMrr()).toEqual(before);

    const edited = await api('PUT', `/segmenter_definitions/${halves}`, owner, {
      name: 'Seats halves',
      type_name: 'customer_segment',
      segment_id: (await api('GET', `/segmenter_definitions/${halves}`, owner)).json().segment_id,
      buckets: [
        { name: 'Few', from: 0, to: 20 },
        { name: 'Many', from: 21, to: null },
      ],
    });
    expect(edited.statusCode, edited.body).toBe(200);
    await app.reports.settled();
    // Many is now c3 alone, on the filtered report and on the pinned link.
    const after = await filteredMrr(raw(seatsSegment, '40'));
    expect(after).not.toEqual(before);
    expect(await filteredMrr(many)).toEqual(after);
    expect(await sharedMrr()).toEqual(after);
  });
});
