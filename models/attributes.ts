/**
 * Custom attributes (object attributes): named fields an account adds to its customers,
 * payments (subscription histories) or costs. Values are imported or typed per record; a
 * customer attribute also has a customer segment (what imports and the customer drawer use).
 */

export type AttributeObject = 'customer' | 'subscription_history' | 'cost';

/** The objects an attribute can belong to, in the order lists show them, with their labels. */
export const ATTRIBUTE_OBJECTS: readonly { value: AttributeObject; label: 'Customer' | 'Payment' | 'Cost' }[] = [
  { value: 'customer', label: 'Customer' },
  { value: 'subscription_history', label: 'Payment' },
  { value: 'cost', label: 'Cost' },
];

export const ATTRIBUTE_NAME_REQUIRED = 'Name is required';
export const ATTRIBUTE_NAME_MAX_LENGTH = 100;
export const ATTRIBUTE_NAME_TOO_LONG = `At most ${ATTRIBUTE_NAME_MAX_LENGTH} characters allowed`;
export const ATTRIBUTE_NAME_TAKEN = 'An attribute with this name already exists';
export const ATTRIBUTE_REMOVE_FAILURE = 'Cound not remove attribute. Please, try again.';
export const ATTRIBUTES_FETCH_FAILURE = 'Could not fetch object attributes';

export interface ObjectAttribute {
  id: string;
  name: string;
  object: AttributeObject;
  /** The customer segment of a customer attribute; null for payment and cost attributes. */
  segment_id: string | null;
  created_at: string;
}

/** The label of an attribute's object ('Customer', 'Payment', 'Cost'). */
export function attributeObjectLabel(object: AttributeObject): 'Customer' | 'Payment' | 'Cost' {
  return ATTRIBUTE_OBJECTS.find((entry) => entry.value === object)?.label ?? 'Customer';
}

/** The problem of an attribute name as typed (blank after trimming, or too long); null when fine. */
export function attributeNameError(name: string): string | null {
  const trimmed = name.trim();
  if (trimmed.length === 0) return ATTRIBUTE_NAME_REQUIRED;
  if (trimmed.length > ATTRIBUTE_NAME_MAX_LENGTH) return ATTRIBUTE_NAME_TOO_LONG;
  return null;
}

/** Attributes in list order: by object (customer, payment, cost), then by name, case-insensitively. */
export function sortAttributes<T extends Pick<ObjectAttribute, 'name' | 'object'>>(attributes: readonly T[]): T[] {
  const rank = (object: AttributeObject) => ATTRIBUTE_OBJECTS.findIndex((entry) => entry.value === object);
  return [...attributes].sort((a, b) => rank(a.object) - rank(b.object) || a.name.localeCompare(b.name, 'en', { sensitivity: 'base' }) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}
