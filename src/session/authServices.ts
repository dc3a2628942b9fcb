import { authFailure } from '../../machines/auth/authActors';
import type { AuthServices } from '../../machines/auth/authActors';
import type { AuthFailure } from '../../machines/auth/types';
import {
  INVITATION_NOT_FOUND_MESSAGE,
  isPermissionLevel,
  RESET_TOKEN_INVALID_MESSAGE,
  SERVER_UNAVAILABLE_MESSAGE,
  SIGN_IN_FAILURE_MESSAGE,
  TOKEN_SIGN_IN_FAILURE_MESSAGE,
} from '../../models/auth';
import type { AuthUser } from '../../models/auth';
import { SHARED_REPORT_ONLY_PERMISSION_LEVEL } from '../../models/constants';
import type { ApiClient } from '../api/client';
import { apiErrorLines, apiErrorMessages, apiFieldErrors } from '../api/errors';
import type { TokenStore } from '../api/tokenStore';

const TOO_MANY_ATTEMPTS_FALLBACK = 'Too many sign-in attempts. Try again later.';
const NO_TOKEN_IN_ANSWER = 'Something went wrong: the server did not send a session token';

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

/**
 * The user of an API answer (`{user: {...}}`) as the session keeps it: the API token is
 * dropped, and an unknown permission level counts as the restricted one.
 */
export function toAuthUser(body: unknown): AuthUser {
  const raw = isRecord(body) && isRecord(body.user) ? body.user : body;
  if (!isRecord(raw) || typeof raw.id !== 'string' || typeof raw.email !== 'string') {
    throw authFailure('unavailable', [SERVER_UNAVAILABLE_MESSAGE]);
  }
  const user: AuthUser = {
    id: raw.id,
    email: raw.email,
    name: text(raw.name),
    account_id: text(raw.account_id),
    permission_level: isPermissionLevel(raw.permission_level) ? raw.permission_level : SHARED_REPORT_ONLY_PERMISSION_LEVEL,
  };
  if (typeof raw.currency === 'string') user.currency = raw.currency;
  return user;
}

/** The JWT of an `Authorization: Bearer <jwt>` answer header. */
export function bearerToken(response: Response): string | null {
  const match = /^Bearer\s+(\S+)$/i.exec(response.headers.get('Authorization') ?? '');
  return match?.[1] ?? null;
}

/** The failure an error answer means; `overrides` give a call its own messages per status. */
export function failureOfAnswer(response: Response, body: unknown, overrides: Partial<Record<number, AuthFailure>> = {}): AuthFailure {
  const override = overrides[response.status];
  if (override) return override;
  switch (response.status) {
    case 401:
      return authFailure('unauthorized', apiErrorMessages(body));
    case 404:
      return authFailure('notFound', apiErrorMessages(body));
    case 429:
      return authFailure('rateLimited', apiErrorMessages(body, TOO_MANY_ATTEMPTS_FALLBACK));
    case 400:
    case 422:
      return authFailure('invalid', apiErrorLines(body), apiFieldErrors(body));
    default:
      return authFailure('unavailable', [SERVER_UNAVAILABLE_MESSAGE]);
  }
}

/** Runs a call; a transport failure (offline, refused connection) becomes `unavailable`, an abort stays an abort. */
async function reach<T>(signal: AbortSignal, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (signal.aborted) throw error;
    throw authFailure('unavailable', [SERVER_UNAVAILABLE_MESSAGE]);
  }
}

interface Answer {
  data?: unknown;
  error?: unknown;
  response: Response;
}

/** The user of a successful answer, or the failure of an error answer. */
function userOf(answer: Answer, overrides?: Partial<Record<number, AuthFailure>>): AuthUser {
  if (!answer.response.ok) throw failureOfAnswer(answer.response, answer.error, overrides);
  return toAuthUser(answer.data);
}

/** Keeps the token a sign-in answer carries; an answer without one is a server fault. */
function keepToken(answer: Answer, tokens: Pick<TokenStore, 'set'>): void {
  const token = bearerToken(answer.response);
  if (!token) throw authFailure('unavailable', [NO_TOKEN_IN_ANSWER]);
  tokens.set(token);
}

/** The auth machine's calls over the API client; sign-in answers' tokens go to the token store. */
export function createAuthServices(client: ApiClient, tokens: Pick<TokenStore, 'get' | 'set'>): AuthServices {
  return {
    async fetchStoredUser(signal) {
      if (!tokens.get()) throw authFailure('unauthorized');
      return userOf(await reach(signal, () => client.GET('/users/me', { signal })));
    },

    async signIn({ email, password }, signal) {
      const answer = await reach(signal, () => client.POST('/users/sign_in', { body: { user: { email, password } }, signal }));
      const user = userOf(answer, { 401: authFailure('invalidCredentials', [SIGN_IN_FAILURE_MESSAGE]) });
      keepToken(answer, tokens);
      return user;
    },

    async signUp({ email, password, name, marketingRef }, signal) {
      const user: { email: string; password: string; name?: string; marketing_ref?: string } = { email, password };
      if (name?.trim()) user.name = name.trim();
      if (marketingRef) user.marketing_ref = marketingRef;
      const answer = await reach(signal, () => client.POST('/users', { body: { user }, signal }));
      const signedUp = userOf(answer);
      keepToken(answer, tokens);
      return signedUp;
    },

    async resetPassword({ token, password, passwordConfirmation }, signal) {
      const answer = await reach(signal, () =>
        client.PUT('/users/password', {
          body: { user: { password, password_confirmation: passwordConfirmation, reset_password_token: token } },
          signal,
        }),
      );
      if (!answer.response.ok) {
        const failure = failureOfAnswer(answer.response, answer.error);
        if ('reset_password_token' in failure.fields) throw authFailure('invalid', [RESET_TOKEN_INVALID_MESSAGE], failure.fields);
        throw failure;
      }
      const user = toAuthUser(answer.data);
      keepToken(answer, tokens);
      return user;
    },

    async acceptInvitation({ token, name, password, passwordConfirmation }, signal) {
      const answer = await reach(signal, () =>
        client.PUT('/invitations/{token}', {
          params: { path: { token } },
          body: { user: { name, password, password_confirmation: passwordConfirmation } },
          signal,
        }),
      );
      const user = userOf(answer, { 404: authFailure('notFound', [INVITATION_NOT_FOUND_MESSAGE]) });
      keepToken(answer, tokens);
      return user;
    },

    async fetchTokenUser(token, signal) {
      const answer = await reach(signal, () =>
        client.GET('/users/me', { headers: { Authorization: `Bearer ${token}` }, signal }),
      );
      const user = userOf(answer, { 401: authFailure('unauthorized', [TOKEN_SIGN_IN_FAILURE_MESSAGE]) });
      tokens.set(token);
      return user;
    },

    async signOut(signal) {
      await reach(signal, () => client.DELETE('/users/sign_out', { signal }));
    },
  };
}
