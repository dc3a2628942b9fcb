import { describe, expect, it } from 'vitest';
import { DETAILS_UNIT_COUNTING_DEFINITIONS } from '../../../models/constants';
import { DEFINITION_IDS } from '../../../server/metrics/definitions/catalogue';
import { detailsCountUnits } from '../../../server/metrics/details';

describe('the sections whose details count units', () => {
  it('are the same on the client (the export menu) as in the metrics engine', () => {
    expect(DEFINITION_IDS.filter((id) => detailsCountUnits(id))).toEqual([...DETAILS_UNIT_COUNTING_DEFINITIONS].sort((a, b) => DEFINITION_IDS.indexOf(a as never) - DEFINITION_IDS.indexOf(b as never)));
    expect(DETAILS_UNIT_COUNTING_DEFINITIONS.every((id) => (DEFINITION_IDS as readonly string[]).includes(id))).toBe(true);
  });
});
