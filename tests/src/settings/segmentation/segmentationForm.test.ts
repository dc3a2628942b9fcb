import { describe, expect, it } from 'vitest';
import { BUCKET_MAX_BELOW_MIN, REQUIRED, SEGMENTATION_ATTRIBUTE_REQUIRED, SEGMENTATION_PRODUCT_REQUIRED } from '../../../../models/segmentation';
import { GraphqlCallError } from '../../../../src/api/graphql';
import { initialFormValues, placeProblems, segmentationFormErrors, segmentationInput } from '../../../../src/settings/segmentation/segmentationForm';
import type { SegmentationFormValues } from '../../../../src/settings/segmentation/segmentationForm';
import { serverProblems } from '../../../../src/settings/segmentation/segmentationQueries';
import { COMPANY_SIZE, EMPLOYEES, PLAN, PLAN_GROUPS, PRODUCT } from './segmentationFixtures';

/** The drawer's form rules: its messages by field, the input it sends, and the server's refusals placed on its fields. */

const values = (overrides: Partial<SegmentationFormValues>): SegmentationFormValues => ({ ...initialFormValues(null), name: 'Size', ...overrides });
const row = (name: string, max: string) => ({ key: `${name}-${max}`, name, max });

describe('segmentationFormErrors', () => {
  it('asks for an attribute before anything of its configuration', () => {
    expect(segmentationFormErrors(values({ name: '' }), null)).toEqual({ name: 'Name is required', attribute: SEGMENTATION_ATTRIBUTE_REQUIRED });
  });

  it('checks only the chosen configuration', () => {
    const form = values({ attribute: 'x', configuration: 'products', buckets: [row('', '')] });
    expect(segmentationFormErrors(form, PRODUCT)).toEqual({ products: SEGMENTATION_PRODUCT_REQUIRED });
  });

  it('puts each bucket max message on its row, against the min derived from the rows above', () => {
    const form = values({ configuration: 'buckets', buckets: [row('', '10'), row('', '5'), row('', '')] });
    expect(segmentationFormErrors(form, EMPLOYEES)).toEqual({ 'buckets.1.max': BUCKET_MAX_BELOW_MIN, 'buckets.2.max': REQUIRED });
  });

  it("requires each group's name and values", () => {
    const form = values({ configuration: 'mappings', groups: [{ key: 'a', name: ' ', values: ['gold'] }, { key: 'b', name: 'Free', values: [] }] });
    expect(segmentationFormErrors(form, PLAN)).toEqual({ 'groups.0.name': REQUIRED, 'groups.1.values': REQUIRED });
  });
});

describe('segmentationInput', () => {
  it('sends the trimmed name, the type and the chosen configuration only', () => {
    const form = values({ name: '  Plans ', configuration: 'mappings', groups: [{ key: 'a', name: ' Paid ', values: ['gold', 'platinum'] }], buckets: [row('', '9')] });
    expect(segmentationInput(form, { type_name: 'customer_segment', segment_id: 'attr_plan' })).toEqual({
      name: 'Plans',
      type_name: 'customer_segment',
      segment_id: 'attr_plan',
      mappings: [
        { value: 'gold', name: 'Paid' },
        { value: 'platinum', name: 'Paid' },
      ],
    });
  });

  it('round-trips a saved bucket segmentation through the form', () => {
    const form = initialFormValues(COMPANY_SIZE);
    expect(form.configuration).toBe('buckets');
    expect(segmentationInput(form, COMPANY_SIZE).buckets).toEqual(COMPANY_SIZE.buckets);
  });
});

describe("the server's refusals", () => {
  it('places each problem on the field its pointer names, a mapping on the group holding its value', () => {
    const form = initialFormValues(PLAN_GROUPS);
    const input = segmentationInput(form, PLAN_GROUPS);
    const placed = placeProblems(
      [
        { pointer: '/name', detail: 'Taken' },
        { pointer: '/segment_id', detail: SEGMENTATION_ATTRIBUTE_REQUIRED },
        { pointer: '/mappings/2/value', detail: 'Duplicate' },
        { pointer: '/mappings/0/name', detail: REQUIRED },
        { pointer: '/buckets/0/to', detail: 'not here' },
        { pointer: null, detail: 'Something else' },
      ],
      form,
      input,
    );
    expect(placed.fields).toEqual({ name: 'Taken', attribute: SEGMENTATION_ATTRIBUTE_REQUIRED, 'groups.1.values': 'Duplicate', 'groups.0.name': REQUIRED, 'buckets.0.max': 'not here' });
    expect(placed.other).toEqual(['Something else']);
  });

  it('leaves a bucket problem past the rows (the open bucket) to the failure message', () => {
    const form = initialFormValues(COMPANY_SIZE);
    const placed = placeProblems([{ pointer: '/buckets/2/to', detail: 'The last bucket must have no max value' }], form, segmentationInput(form, COMPANY_SIZE));
    expect(placed).toEqual({ fields: {}, other: ['The last bucket must have no max value'] });
  });

  it("reads a refused call's problems: its first detail, and nothing from other failures", () => {
    expect(serverProblems(new GraphqlCallError('refused', 422, 'Name is required'))).toEqual([{ pointer: null, detail: 'Name is required' }]);
    expect(serverProblems(new GraphqlCallError('failed', 500, 'Something went wrong'))).toEqual([]);
    expect(serverProblems(new Error('offline'))).toEqual([]);
  });
});
