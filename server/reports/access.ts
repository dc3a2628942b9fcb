import type { FastifyRequest } from 'fastify';
import { ApiError } from '../http/errors';
import { REPORT_NOT_FOUND } from './reports';

/** Editing: a full user of the report's own account (spec: the can_edit check). */
export function canEdit(request: FastifyRequest, accountId: string): boolean {
  return request.auth?.accountId === accountId && request.auth.permissionLevel === 'user';
}

/**
 * Whether this request may read a report of that account by its secret: its account's users,
 * or anyone when the account allows anonymous access; else 404 (another account's report is
 * not found) or 401 (not signed in).
 */
export function mustBeReadable<T extends { account_id: string; anonymous_access_allowed: boolean }>(request: FastifyRequest, found: T | undefined): T {
  if (found && (request.auth?.accountId === found.account_id || found.anonymous_access_allowed)) return found;
  if (!request.auth) throw ApiError.of(401, 'You need to sign in or sign up before continuing.');
  throw ApiError.of(404, REPORT_NOT_FOUND);
}
