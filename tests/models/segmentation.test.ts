import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  BUCKET_LAST_NOT_OPEN,
  BUCKET_MAX_BELOW_MIN,
  BUCKET_MAX_NOT_NUMBER,
  BUCKET_NOT_CONTIGUOUS,
  MAPPING_VALUE_DUPLICATE,
  MAPPINGS_AND_BUCKETS,
  REQUIRED,
  SEGMENTATION_ATTRIBUTE_REQUIRED,
  SEGMENTATION_NAME_REQUIRED,
  SEGMENTATION_NAME_TOO_LONG,
  SEGMENTATION_NAME_TOO_SHORT,
  SEGMENTATION_PRODUCT_REQUIRED,
  bucketLabel,
  bucketMaxError,
  bucketMins,
  canDeleteBucket,
  draftsFromBuckets,
  finalizeBuckets,
  groupsFromMappings,
  mappingsFromGroups,
  normalizedSegmentationInput,
  segmentationInputProblems,
  segmentationNameError,
  type BucketDraft,
  type SegmenterTypeInfo,
} from '../../models/segmentation';

/** The segmentation rules the drawer and the server share: buckets, mappings, the whole input. */

/** Valid editor rows: each max at least its min (widths of 0 and up). */
const validDrafts = fc.array(fc.record({ name: fc.oneof(fc.constant(''), fc.string({ minLength: 1, maxLength: 12 }).filter((s) => s.trim() !== '' && s === s.trim())), width: fc.nat({ max: 10_000 }) }), { minLength: 1, maxLength: 12 }).map((rows) => {
  let min = 0;
  return rows.map(({ name, width }): BucketDraft => {
    const max = min + width;
    min = max + 1;
    return { name, max: String(max) };
  });
});

const TYPES: SegmenterTypeInfo[] = [
  { name: 'customer_segment', label: 'Seats', group_label: 'Customer attributes', segment_id: 'att1', allowed_configuration: ['mappings', 'buckets'] },
  { name: 'subscription_segment', label: 'Product', group_label: 'Payment attributes', segment_id: 'product', allowed_configuration: ['products'] },
  { name: 'subscription_segment', label: 'Currency', group_label: 'Payment attributes', segment_id: 'currency', allowed_configuration: ['mappings'] },
];

describe('bucket rules', () => {
  it('the first min is 0 and each next min is the previous max plus one', () => {
    fc.assert(
      fc.property(validDrafts, (drafts) => {
        const mins = bucketMins(drafts);
        expect(mins[0]).toBe(0);
        for (let i = 1; i < drafts.length; i++) expect(mins[i]).toBe(Number(drafts[i - 1]?.max) + 1);
      }),
    );
  });

  it('a row after a max that is not a number keeps the min of the row before', () => {
    expect(bucketMins([{ name: '', max: '10' }, { name: '', max: 'abc' }, { name: '', max: '30' }])).toEqual([0, 11, 11]);
  });

  it('finalized buckets are contiguous from 0 and end with an open bucket named "> last max"', () => {
    fc.assert(
      fc.property(validDrafts, (drafts) => {
        const buckets = finalizeBuckets(drafts);
        expect(buckets).toHaveLength(drafts.length + 1);
        expect(buckets[0]?.from).toBe(0);
        for (let i = 1; i < buckets.length; i++) expect(buckets[i]?.from).toBe((buckets[i - 1]?.to as number) + 1);
        const last = buckets.at(-1);
        expect(last).toEqual({ name: `> ${drafts.at(-1)?.max}`, from: Number(drafts.at(-1)?.max) + 1, to: null });
        // The server accepts what the editor saves.
        expect(segmentationInputProblems({ name: 'Size', type_name: 'customer_segment', segment_id: 'att1', buckets }, TYPES)).toEqual([]);
      }),
    );
  });

  it('an empty name becomes "from - to"', () => {
    fc.assert(
      fc.property(validDrafts, (drafts) => {
        finalizeBuckets(drafts)
          .slice(0, -1)
          .forEach((bucket, i) => expect(bucket.name).toBe(drafts[i]?.name === '' ? `${bucket.from} - ${bucket.to}` : drafts[i]?.name));
      }),
    );
  });

  it('drafts of finalized buckets give back the rows (names filled in); finalizing again gives the same buckets', () => {
    fc.assert(
      fc.property(validDrafts, (drafts) => {
        const buckets = finalizeBuckets(drafts);
        const back = draftsFromBuckets(buckets);
        expect(back.map((draft) => draft.max)).toEqual(drafts.map((draft) => draft.max));
        expect(back.map((draft) => draft.name)).toEqual(buckets.slice(0, -1).map((bucket) => bucket.name));
        expect(finalizeBuckets(back)).toEqual(buckets);
      }),
    );
  });

  it('no rows, no buckets', () => {
    expect(finalizeBuckets([])).toEqual([]);
    expect(draftsFromBuckets([])).toEqual([]);
  });

  it('the first bucket can be deleted only when alone; any other can', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 50 }), fc.nat({ max: 60 }), (count, index) => {
        const expected = index < count && (index > 0 || count === 1);
        expect(canDeleteBucket(index, count)).toBe(expected);
      }),
    );
  });

  it('a max is required, digits only, and not below its min', () => {
    fc.assert(
      fc.property(fc.nat({ max: 1_000_000 }), fc.nat({ max: 1_000_000 }), (min, max) => {
        expect(bucketMaxError(String(max), min)).toBe(max < min ? BUCKET_MAX_BELOW_MIN : null);
      }),
    );
    fc.assert(
      fc.property(
        fc.string({ minLength: 1 }).filter((s) => s.trim() !== '' && !/^\d+$/.test(s.trim())),
        fc.nat(),
        (text, min) => {
          expect(bucketMaxError(text, min)).toBe(BUCKET_MAX_NOT_NUMBER);
        },
      ),
    );
  });

  it.each([
    ['', 0, REQUIRED],
    ['   ', 5, REQUIRED],
    ['12.5', 0, BUCKET_MAX_NOT_NUMBER],
    ['-3', 0, BUCKET_MAX_NOT_NUMBER],
    ['1 200', 0, BUCKET_MAX_NOT_NUMBER],
    ['9', 10, BUCKET_MAX_BELOW_MIN],
    ['10', 10, null],
    [' 1200 ', 0, null],
  ])('max %j with min %i: %s', (max, min, expected) => {
    expect(bucketMaxError(max, min)).toBe(expected);
  });

  it.each([
    [{ from: 0, to: 10 }, '0 - 10'],
    [{ from: 11, to: null }, '> 10'],
  ])('labels %j as %s', (bucket, label) => {
    expect(bucketLabel(bucket)).toBe(label);
  });
});

describe('mappings', () => {
  it('groups and mappings convert both ways', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.string({ minLength: 1, maxLength: 8 }), { maxLength: 6 }), fc.array(fc.string({ maxLength: 8 }), { maxLength: 20 }), (names, values) => {
        const groups = names.map((name, i) => ({ name, values: values.filter((_, k) => k % Math.max(1, names.length) === i) })).filter((group) => group.values.length > 0);
        expect(groupsFromMappings(mappingsFromGroups(groups))).toEqual(groups);
      }),
    );
  });

  it('keeps the first-seen order of groups', () => {
    expect(groupsFromMappings([{ value: 'a', name: 'B' }, { value: 'b', name: 'A' }, { value: 'c', name: 'B' }])).toEqual([
      { name: 'B', values: ['a', 'c'] },
      { name: 'A', values: ['b'] },
    ]);
  });
});

describe('the whole input', () => {
  it.each([
    ['', SEGMENTATION_NAME_REQUIRED],
    ['  ', SEGMENTATION_NAME_REQUIRED],
    ['ab', SEGMENTATION_NAME_TOO_SHORT],
    [' ab ', SEGMENTATION_NAME_TOO_SHORT],
    ['abc', null],
    ['x'.repeat(101), SEGMENTATION_NAME_TOO_LONG],
  ])('name %j: %s', (name, expected) => {
    expect(segmentationNameError(name)).toBe(expected);
  });

  it('needs a type of the account', () => {
    expect(segmentationInputProblems({ name: 'Size', type_name: 'customer_segment', segment_id: '' }, TYPES)).toEqual([{ pointer: '/segment_id', detail: SEGMENTATION_ATTRIBUTE_REQUIRED }]);
    expect(segmentationInputProblems({ name: 'Size', type_name: 'cost_segment', segment_id: 'att1' }, TYPES)).toEqual([{ pointer: '/segment_id', detail: SEGMENTATION_ATTRIBUTE_REQUIRED }]);
  });

  it('a product segmentation needs a product', () => {
    expect(segmentationInputProblems({ name: 'Plans', type_name: 'subscription_segment', segment_id: 'product', products: [' '] }, TYPES)).toEqual([{ pointer: '/products', detail: SEGMENTATION_PRODUCT_REQUIRED }]);
  });

  it('reports blank and repeated mapping values, blank group names, and mappings together with buckets', () => {
    const problems = segmentationInputProblems(
      {
        name: 'Size',
        type_name: 'customer_segment',
        segment_id: 'att1',
        mappings: [
          { value: '', name: 'A' },
          { value: 'x', name: '' },
          { value: 'x', name: 'B' },
        ],
        buckets: [{ name: 'All', from: 0, to: null }],
      },
      TYPES,
    );
    expect(problems).toEqual([
      { pointer: '/mappings/0/value', detail: REQUIRED },
      { pointer: '/mappings/1/name', detail: REQUIRED },
      { pointer: '/mappings/2/value', detail: MAPPING_VALUE_DUPLICATE },
      { pointer: '/buckets', detail: MAPPINGS_AND_BUCKETS },
    ]);
  });

  it('checks that buckets follow each other and the last is open', () => {
    const input = (buckets: { name: string; from: number; to: number | null }[]) => segmentationInputProblems({ name: 'Size', type_name: 'customer_segment', segment_id: 'att1', buckets }, TYPES);
    expect(input([{ name: 'A', from: 0, to: 5 }, { name: 'B', from: 7, to: null }])).toEqual([{ pointer: '/buckets/1/from', detail: BUCKET_NOT_CONTIGUOUS }]);
    expect(input([{ name: 'A', from: 0, to: 5 }])).toEqual([{ pointer: '/buckets/0/to', detail: BUCKET_LAST_NOT_OPEN }]);
    expect(input([{ name: ' ', from: 0, to: null }])).toEqual([{ pointer: '/buckets/0/name', detail: REQUIRED }]);
  });

  it('ignores configurations the type does not allow, and the server stores only the allowed ones', () => {
    const input = { name: ' Zones ', type_name: 'subscription_segment' as const, segment_id: 'currency', mappings: [{ value: 'USD', name: 'Dollar ' }], buckets: [{ name: '', from: 3, to: 1 }], products: ['x'] };
    expect(segmentationInputProblems(input, TYPES)).toEqual([]);
    expect(normalizedSegmentationInput(input, TYPES[2] as SegmenterTypeInfo)).toEqual({ name: 'Zones', type_name: 'subscription_segment', segment_id: 'currency', mappings: [{ value: 'USD', name: 'Dollar' }], buckets: [], products: [] });
  });
});
