import type { Struct } from 'superstruct';
import { API_FIELD_DETAILS } from '../../models/auth';
import { fieldFailures, type FieldFailure } from '../../models/validation';

/**
 * A request body checked by the superstruct struct its form validates with (models/), so the
 * form and the server refuse the same values. Fastify's JSON schema still checks the shape
 * first (and documents it); the struct then decides the business rules. A route adds each
 * field's detail to its Problems (server/auth/problems.ts) beside its own checks, so one 422
 * answers them all in the spec's error body.
 */

/** How a route words a failure: the struct's own message (the spec's), or the API's field detail. */
export type Wording = (failure: FieldFailure) => string;

/** The struct's message: the spec's words, as the form shows them. */
export const specWording: Wording = (failure) => failure.message;

/**
 * The detail the sign-up, password reset and invitation APIs give after a field's name
 * ('is too short (minimum is 8 characters)'), for the same rule the form words as a sentence.
 */
export const fieldWording: Wording = (failure) =>
  (failure.refinement !== undefined && (API_FIELD_DETAILS as Record<string, string>)[failure.refinement]) || failure.message;

/** The first failure of each field, worded by `wording`: `{ email: 'is invalid' }`; empty when valid. */
export function structDetails<T, S>(struct: Struct<T, S>, values: unknown, wording: Wording = specWording): Partial<Record<string, string>> {
  return Object.fromEntries(fieldFailures(struct, values).map((failure) => [failure.path, wording(failure)]));
}
