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

/** One field's first failure: its dotted path, the struct's message and the rule (refinement) that failed. */
export interface FieldFailure {
  path: string;
  message: string;
  /** The refinement's name ('required', 'email', ...); undefined when the value has the wrong type. */
  refinement: string | undefined;
}

/** The first failure of each field of `values` against `struct`, in the struct's field order. */
export function fieldFailures<T, S>(struct: Struct<T, S>, values: unknown): FieldFailure[] {
  const [error] = validate(values, struct);
  if (!error) return [];
  const byPath = new Map<string, FieldFailure>();
  for (const failure of error.failures()) {
    const path = failure.path.map(String).join('.');
    if (!byPath.has(path)) byPath.set(path, { path, message: failure.message, refinement: failure.refinement });
  }
  return [...byPath.values()];
}

/**
 * The failures of `values` against `struct` as `{ 'field.path': message }`, the first failure
 * of each field only: the shape form libraries (@mantine/form's `validate`) and API error
 * bodies use. An empty object means the values are valid.
 */
export function fieldErrors<T, S>(struct: Struct<T, S>, values: unknown): Record<string, string> {
  return Object.fromEntries(fieldFailures(struct, values).map((failure) => [failure.path, failure.message]));
}
