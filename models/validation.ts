import { refine, string, validate } from 'superstruct';
import type { Struct } from 'superstruct';

/** The message of an empty required field, as the spec writes it. */
export const REQUIRED_MESSAGE = 'Required';

/** A string that is not blank (spaces alone count as blank). */
export function requiredString(message: string = REQUIRED_MESSAGE): Struct<string, null> {
  return refine(string(), 'required', (value) => value.trim().length > 0 || message);
}

/**
 * Adds a pattern rule to a string struct. A blank value passes, so an empty required field
 * reports only its 'Required' message.
 */
export function matching(struct: Struct<string, null>, name: string, pattern: RegExp, message: string): Struct<string, null> {
  return refine(struct, name, (value) => value.trim().length === 0 || pattern.test(value.trim()) || message);
}

/**
 * The failures of `values` against `struct` as `{ 'field.path': message }`, the first failure
 * of each field only: the shape form libraries (@mantine/form's `validate`) and API error
 * bodies use. An empty object means the values are valid.
 */
export function fieldErrors<T, S>(struct: Struct<T, S>, values: unknown): Record<string, string> {
  const [error] = validate(values, struct);
  const errors: Record<string, string> = {};
  if (!error) return errors;
  for (const failure of error.failures()) {
    const key = failure.path.map(String).join('.');
    if (!(key in errors)) errors[key] = failure.message;
  }
  return errors;
}
