import type { FormErrors } from '@mantine/form';
import type { Struct } from 'superstruct';
import { fieldErrors } from '../../models/validation';

/**
 * @mantine/form's `validate` from a superstruct struct of `models/`: the form shows the
 * struct's messages (the spec's exact texts), the first one per field, so the form and the
 * server enforce the same rule with the same words.
 */
export function superstructResolver<T, S>(struct: Struct<T, S>): (values: unknown) => FormErrors {
  return (values) => fieldErrors(struct, values);
}
