import { describe, expect, it } from 'vitest';
import { ATTRIBUTE_NAME_MAX_LENGTH, ATTRIBUTE_NAME_REQUIRED, ATTRIBUTE_NAME_TOO_LONG, ATTRIBUTE_OBJECTS, attributeNameError, attributeObjectLabel, sortAttributes } from '../../models/attributes';

/** Custom attribute rules shared by the Settings cards and the server. */

describe('attribute rules', () => {
  it.each([
    ['', ATTRIBUTE_NAME_REQUIRED],
    ['   ', ATTRIBUTE_NAME_REQUIRED],
    ['Plan', null],
    [` ${'x'.repeat(ATTRIBUTE_NAME_MAX_LENGTH)} `, null],
    ['x'.repeat(ATTRIBUTE_NAME_MAX_LENGTH + 1), ATTRIBUTE_NAME_TOO_LONG],
  ])('name %j: %s', (name, expected) => {
    expect(attributeNameError(name)).toBe(expected);
  });

  it('labels the objects Customer, Payment and Cost, in that order', () => {
    expect(ATTRIBUTE_OBJECTS.map((object) => [object.value, object.label])).toEqual([
      ['customer', 'Customer'],
      ['subscription_history', 'Payment'],
      ['cost', 'Cost'],
    ]);
    expect(attributeObjectLabel('subscription_history')).toBe('Payment');
  });

  it('sorts by object, then name case-insensitively', () => {
    const sorted = sortAttributes([
      { name: 'zeta', object: 'cost' as const },
      { name: 'Beta', object: 'customer' as const },
      { name: 'alpha', object: 'customer' as const },
      { name: 'Channel', object: 'subscription_history' as const },
    ]);
    expect(sorted.map((a) => a.name)).toEqual(['alpha', 'Beta', 'Channel', 'zeta']);
  });
});
