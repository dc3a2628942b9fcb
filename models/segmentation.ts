/**
 * Segmentations: a user-made grouping of one attribute's raw values into named segments, by
 * mappings (raw value -> group name), numeric buckets (whole-number ranges) or a product list.
 * A value outside every group is counted under 'Other'. The rules here are shared by the
 * segmentation drawer and the server, so both report the same problem with the same message.
 */

export const SEGMENTATION_NAME_REQUIRED = 'Name is required';
export const SEGMENTATION_NAME_TOO_SHORT = 'At least 3 characters required';
export const SEGMENTATION_NAME_MIN_LENGTH = 3;
export const SEGMENTATION_NAME_MAX_LENGTH = 100;
export const SEGMENTATION_NAME_TOO_LONG = `At most ${SEGMENTATION_NAME_MAX_LENGTH} characters allowed`;
export const SEGMENTATION_ATTRIBUTE_REQUIRED = 'Attribute is required';
export const SEGMENTATION_PRODUCT_REQUIRED = 'You must select a product to create this segmentation';
export const REQUIRED = 'Required';
export const BUCKET_MAX_NOT_NUMBER = 'Value should be a number ex. 1200';
export const BUCKET_MAX_BELOW_MIN = 'Max value can not be smaller than its min value';
/** A bucket whose min does not follow the previous bucket (only API clients can send one). */
export const BUCKET_NOT_CONTIGUOUS = 'Buckets must be contiguous: the first starts at 0 and each next one at the previous max plus one';
/** The last bucket must be open-ended (to null); only API clients can send another. */
export const BUCKET_LAST_NOT_OPEN = 'The last bucket must have no max value';
/** Both mappings and buckets sent for one segmentation. */
export const MAPPINGS_AND_BUCKETS = 'Group values either by mappings or by buckets, not both';
/** The same raw value mapped twice. */
export const MAPPING_VALUE_DUPLICATE = 'This value is already mapped';
export const SEGMENTERS_FETCH_FAILURE = 'Could not get segmenters';
export const SEGMENTER_TYPES_FETCH_FAILURE = 'Could not get possible segmenter types';
export const SEGMENTATION_SAVE_FAILURE = 'Could not add segmentation';
export const POSSIBLE_VALUES_FETCH_FAILURE = 'Could not get possible values';
/** The segment a value outside every group falls into. */
export const OTHER_SEGMENT_NAME = 'Other';

export type SegmenterTypeName = 'customer_segment' | 'subscription_segment' | 'cost_segment';
export type SegmentationConfiguration = 'mappings' | 'buckets' | 'products';

export const SEGMENTER_TYPE_NAMES: readonly SegmenterTypeName[] = ['customer_segment', 'subscription_segment', 'cost_segment'];

/** A raw value shown under a group name. */
export interface Mapping {
  value: string;
  name: string;
}

/** A whole-number range [from, to]; `to` null means up to infinity. */
export interface Bucket {
  name: string;
  from: number;
  to: number | null;
}

export interface SegmenterTypeInfo {
  name: SegmenterTypeName;
  label: string;
  group_label: string;
  segment_id: string;
  allowed_configuration: SegmentationConfiguration[];
}

export interface SegmentationDefinition {
  id: string;
  name: string;
  type_name: SegmenterTypeName;
  segment_id: string;
  allowed_configuration: SegmentationConfiguration[];
  mappings: Mapping[];
  buckets: Bucket[];
  products: string[];
  created_at: string;
  updated_at: string;
}

export interface SegmentationInput {
  name: string;
  type_name: SegmenterTypeName;
  segment_id: string;
  mappings?: Mapping[];
  buckets?: Bucket[];
  products?: string[];
}

// ------------------------------------------------------------------ buckets

/** The editor's bucket row: a name and a max typed by the user; its min is derived. */
export interface BucketDraft {
  name: string;
  max: string;
}

const DIGITS = /^\d+$/;

/** A typed max as a whole number, or null when it is not digits only. */
function parseMax(max: string): number | null {
  const trimmed = max.trim();
  return DIGITS.test(trimmed) ? Number(trimmed) : null;
}

/**
 * The min of each bucket row: the first is 0, each next one is the previous max plus one.
 * A row after a max that is not (yet) a number keeps the min of the row before it.
 */
export function bucketMins(drafts: readonly BucketDraft[]): number[] {
  const mins: number[] = [];
  let min = 0;
  for (const draft of drafts) {
    mins.push(min);
    const max = parseMax(draft.max);
    if (max !== null) min = max + 1;
  }
  return mins;
}

/** The problem of a typed max against its row's min: 'Required', not digits, or below the min. */
export function bucketMaxError(max: string, min: number): string | null {
  if (max.trim() === '') return REQUIRED;
  const value = parseMax(max);
  if (value === null) return BUCKET_MAX_NOT_NUMBER;
  if (value < min) return BUCKET_MAX_BELOW_MIN;
  return null;
}

/** The first bucket row can be deleted only when it is the only one; any other row can. */
export function canDeleteBucket(index: number, count: number): boolean {
  if (index < 0 || index >= count) return false;
  return index > 0 || count === 1;
}

/** What a bucket is called when it has no name: 'from - to', or '> {from - 1}' for the open one. */
export function bucketLabel(bucket: Pick<Bucket, 'from' | 'to'> & { name?: string }): string {
  return bucket.to === null ? `> ${bucket.from - 1}` : `${bucket.from} - ${bucket.to}`;
}

/**
 * The buckets saved from the editor's rows (which must be valid): each row from its min to its
 * max, an empty name becoming 'from - to', plus the final open bucket '> last max'.
 * No rows, no buckets.
 */
export function finalizeBuckets(drafts: readonly BucketDraft[]): Bucket[] {
  if (drafts.length === 0) return [];
  const mins = bucketMins(drafts);
  const buckets: Bucket[] = drafts.map((draft, index) => {
    const from = mins[index] as number;
    const to = parseMax(draft.max) ?? from;
    const name = draft.name.trim();
    return { name: name === '' ? bucketLabel({ from, to }) : name, from, to };
  });
  const last = buckets[buckets.length - 1] as Bucket;
  const open = { from: (last.to as number) + 1, to: null };
  buckets.push({ name: bucketLabel(open), ...open });
  return buckets;
}

/** The editor's rows of saved buckets: every bucket with a max (the final open one is dropped). */
export function draftsFromBuckets(buckets: readonly Bucket[]): BucketDraft[] {
  return buckets.filter((bucket) => bucket.to !== null).map((bucket) => ({ name: bucket.name, max: String(bucket.to) }));
}

/** The problems of saved buckets, at pointers under /buckets. */
function bucketProblems(buckets: readonly Bucket[]): { pointer: string; detail: string }[] {
  const problems: { pointer: string; detail: string }[] = [];
  // The from the next bucket must have; null once an earlier max is unusable (reported there).
  let expectedFrom: number | null = 0;
  buckets.forEach((bucket, index) => {
    const at = `/buckets/${index}`;
    if (bucket.name.trim() === '') problems.push({ pointer: `${at}/name`, detail: REQUIRED });
    if (expectedFrom !== null && bucket.from !== expectedFrom) problems.push({ pointer: `${at}/from`, detail: BUCKET_NOT_CONTIGUOUS });
    if (index === buckets.length - 1) {
      if (bucket.to !== null) problems.push({ pointer: `${at}/to`, detail: BUCKET_LAST_NOT_OPEN });
      return;
    }
    if (bucket.to === null) {
      problems.push({ pointer: `${at}/to`, detail: REQUIRED });
      expectedFrom = null;
    } else if (!Number.isSafeInteger(bucket.to) || bucket.to < 0) {
      problems.push({ pointer: `${at}/to`, detail: BUCKET_MAX_NOT_NUMBER });
      expectedFrom = null;
    } else {
      if (bucket.to < bucket.from) problems.push({ pointer: `${at}/to`, detail: BUCKET_MAX_BELOW_MIN });
      expectedFrom = bucket.to + 1;
    }
  });
  return problems;
}

// ------------------------------------------------------------------ mappings

/** The editor's group: a name and the raw values shown under it. */
export interface MappingGroup {
  name: string;
  values: string[];
}

/** Mappings of groups: one {value, name} per value of each group, in order. */
export function mappingsFromGroups(groups: readonly MappingGroup[]): Mapping[] {
  return groups.flatMap((group) => group.values.map((value) => ({ value, name: group.name })));
}

/** Groups of mappings: one per distinct name, in first-seen order, values in mapping order. */
export function groupsFromMappings(mappings: readonly Mapping[]): MappingGroup[] {
  const groups = new Map<string, MappingGroup>();
  for (const mapping of mappings) {
    let group = groups.get(mapping.name);
    if (!group) {
      group = { name: mapping.name, values: [] };
      groups.set(mapping.name, group);
    }
    group.values.push(mapping.value);
  }
  return [...groups.values()];
}

// ------------------------------------------------------------------ the whole input

/** The problem of a segmentation name as typed; null when fine. */
export function segmentationNameError(name: string): string | null {
  const trimmed = name.trim();
  if (trimmed.length === 0) return SEGMENTATION_NAME_REQUIRED;
  if (trimmed.length < SEGMENTATION_NAME_MIN_LENGTH) return SEGMENTATION_NAME_TOO_SHORT;
  if (trimmed.length > SEGMENTATION_NAME_MAX_LENGTH) return SEGMENTATION_NAME_TOO_LONG;
  return null;
}

/** The type an input names (type_name and segment_id), if the account has it. */
export function findSegmenterType(types: readonly SegmenterTypeInfo[], typeName: string, segmentId: string): SegmenterTypeInfo | undefined {
  return types.find((type) => type.name === typeName && type.segment_id === segmentId);
}

/**
 * Every problem of an input against the account's types, as {pointer, detail} (JSON pointers
 * into the input); server and client both use it. Configurations the type does not allow are
 * not checked (the server ignores them).
 */
export function segmentationInputProblems(input: SegmentationInput, types: readonly SegmenterTypeInfo[]): { pointer: string; detail: string }[] {
  const problems: { pointer: string; detail: string }[] = [];
  const nameError = segmentationNameError(typeof input.name === 'string' ? input.name : '');
  if (nameError) problems.push({ pointer: '/name', detail: nameError });
  const type = typeof input.segment_id === 'string' && input.segment_id !== '' ? findSegmenterType(types, input.type_name, input.segment_id) : undefined;
  if (!type) {
    problems.push({ pointer: '/segment_id', detail: SEGMENTATION_ATTRIBUTE_REQUIRED });
    return problems;
  }
  const allowed = new Set(type.allowed_configuration);
  if (allowed.has('products')) {
    const products = (input.products ?? []).filter((product) => product.trim() !== '');
    if (products.length === 0) problems.push({ pointer: '/products', detail: SEGMENTATION_PRODUCT_REQUIRED });
  }
  if (allowed.has('mappings')) {
    const seen = new Set<string>();
    (input.mappings ?? []).forEach((mapping, index) => {
      if (mapping.value.trim() === '') problems.push({ pointer: `/mappings/${index}/value`, detail: REQUIRED });
      else if (seen.has(mapping.value)) problems.push({ pointer: `/mappings/${index}/value`, detail: MAPPING_VALUE_DUPLICATE });
      seen.add(mapping.value);
      if (mapping.name.trim() === '') problems.push({ pointer: `/mappings/${index}/name`, detail: REQUIRED });
    });
  }
  if (allowed.has('buckets')) problems.push(...bucketProblems(input.buckets ?? []));
  if (allowed.has('mappings') && allowed.has('buckets') && (input.mappings ?? []).length > 0 && (input.buckets ?? []).length > 0) {
    problems.push({ pointer: '/buckets', detail: MAPPINGS_AND_BUCKETS });
  }
  return problems;
}

/** The input a server stores: trimmed name, and only the configurations the type allows. */
export function normalizedSegmentationInput(input: SegmentationInput, type: SegmenterTypeInfo): Required<SegmentationInput> {
  const allowed = new Set(type.allowed_configuration);
  return {
    name: input.name.trim(),
    type_name: type.name,
    segment_id: type.segment_id,
    mappings: allowed.has('mappings') ? (input.mappings ?? []).map((mapping) => ({ value: mapping.value, name: mapping.name.trim() })) : [],
    buckets: allowed.has('buckets') ? (input.buckets ?? []).map((bucket) => ({ name: bucket.name.trim(), from: bucket.from, to: bucket.to })) : [],
    products: allowed.has('products') ? [...new Set((input.products ?? []).filter((product) => product.trim() !== ''))] : [],
  };
}

/** The prefix of a filter item's (and a share link's) segment id naming a segmentation: `segmentation:{id}`. */
export const SEGMENTATION_SEGMENT_PREFIX = 'segmentation:';
