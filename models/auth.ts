import { object, optional, refine, string } from 'superstruct';
import type { Infer, Struct } from 'superstruct';
import { FULL_ACCESS_PERMISSION_LEVEL, SHARED_REPORT_ONLY_PERMISSION_LEVEL } from './constants';
import { matching, requiredString } from './validation';

/**
 * Accounts, users and permissions: the user as the client keeps it, who may open which
 * route, and the validation rules of the sign-in area and of inviting a colleague, with the
 * spec's exact messages. Client forms and the server validate with the same structs.
 */

// ---------------------------------------------------------------------------------------
// Users and permissions

export const PERMISSION_LEVELS = [FULL_ACCESS_PERMISSION_LEVEL, SHARED_REPORT_ONLY_PERMISSION_LEVEL] as const;
/** 'user' has full access; 'shared_report_only' only sees reports through their share URLs. */
export type PermissionLevel = (typeof PERMISSION_LEVELS)[number];

/**
 * The signed-in user as the client keeps it. The API token is deliberately absent: it is a
 * long-lived credential, fetched only by the settings card that shows it.
 */
export interface AuthUser {
  id: string;
  email: string;
  name: string;
  account_id: string;
  permission_level: PermissionLevel;
  currency?: string;
}

/** A user of the account as GET /users lists them. */
export interface AccountUser {
  id: string;
  email: string;
  name: string;
  permission_level: PermissionLevel;
  /** Invited, and the invitation is not accepted yet. */
  invitation_pending: boolean;
}

/** Who may open a route: anyone, any signed-in user, or a full-access user only. */
export type RouteAccess = 'public' | 'signedIn' | 'user';

export function isPermissionLevel(value: unknown): value is PermissionLevel {
  return (PERMISSION_LEVELS as readonly unknown[]).includes(value);
}

/** Navigation, settings, the API token and report creation are for full-access users only. */
export function hasFullAccess(user: Pick<AuthUser, 'permission_level'> | null | undefined): boolean {
  return user?.permission_level === FULL_ACCESS_PERMISSION_LEVEL;
}

// ---------------------------------------------------------------------------------------
// Messages

/** The one message of a refused sign-in, whatever was wrong (the form shows the server's 401 with it). */
export const SIGN_IN_FAILURE_MESSAGE = 'Email or password is invalid';
export const INVALID_EMAIL_MESSAGE = 'It does not look like a proper email address';
/** Password length bounds, counted in characters (code points) after NFKC normalisation. */
export const PASSWORD_MIN_LENGTH = 8;
export const PASSWORD_MAX_LENGTH = 128;

/**
 * The sign-up, password reset and invitation APIs word a refused field after its name, as the
 * sign-up page lists them ('password is too short ...'): these are their details for the rules
 * of the structs below, by refinement name. The invite API (POST /users with a token) answers
 * the spec's own messages instead, the structs' messages.
 */
export const API_FIELD_DETAILS = {
  required: "can't be blank",
  email: 'is invalid',
  passwordTooShort: `is too short (minimum is ${PASSWORD_MIN_LENGTH} characters)`,
  passwordTooLong: `is too long (maximum is ${PASSWORD_MAX_LENGTH} characters)`,
  passwordConfirmed: "doesn't match Password",
} as const;

export const PASSWORD_TOO_SHORT_MESSAGE = `Password ${API_FIELD_DETAILS.passwordTooShort}`;
export const PASSWORD_TOO_LONG_MESSAGE = `Password ${API_FIELD_DETAILS.passwordTooLong}`;
export const PASSWORD_MISMATCH_MESSAGE = `Password confirmation ${API_FIELD_DETAILS.passwordConfirmed}`;
/** Shown when the server cannot be reached or fails (network down, 5xx). */
export const SERVER_UNAVAILABLE_MESSAGE = 'We could not reach Subscope. Check your connection and try again.';
export const SESSION_EXPIRED_MESSAGE = 'Your session has expired. Sign in again to continue.';
export const TOKEN_SIGN_IN_FAILURE_MESSAGE = 'This sign-in link is invalid or has expired. Sign in with your email and password.';
export const RESET_TOKEN_INVALID_MESSAGE = 'This reset link is invalid or has expired. Request a new one below.';
export const INVITATION_NOT_FOUND_MESSAGE = 'This invitation is invalid, has expired or was already accepted.';
/** The neutral answer to a reset request: the same whether or not the address has an account. */
export const RESET_REQUEST_SENT_MESSAGE =
  'If an account exists for that address, we have sent it a link to choose a new password. The link is valid for 2 hours.';

/** Users page toasts (spec typos kept). */
export const USERS_FETCH_FAILURE_MESSAGE = 'We could not fetch users from your account';
export const INVITATION_SEND_FAILURE_MESSAGE = 'We could not sent invitation, something went wrong';
export const API_TOKEN_FETCH_FAILURE_MESSAGE = 'We could not get your API token';

// ---------------------------------------------------------------------------------------
// Patterns

/** The reset request's "simple pattern": some text, '@', some text. */
export const SIMPLE_EMAIL_PATTERN = /^\S+@\S+$/;
/** A proper e-mail address: local part, '@', a domain with a dot. Catches typos; not an RFC 5322 parser. */
export const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
/** The longest e-mail address a mail server delivers to (RFC 5321's path limit less its brackets). */
export const EMAIL_MAX_LENGTH = 254;

/** A proper e-mail address (surrounding spaces ignored): the pattern, at most 254 characters. */
export function isEmailAddress(email: string): boolean {
  const trimmed = email.trim();
  return trimmed.length <= EMAIL_MAX_LENGTH && EMAIL_PATTERN.test(trimmed);
}

/** Characters of a password as its length rule counts them: code points after NFKC. */
export function passwordLength(password: string): number {
  return [...password.normalize('NFKC')].length;
}

/** The reset request button stays disabled until the address matches text@text. */
export function isResetRequestEmail(email: string): boolean {
  return SIMPLE_EMAIL_PATTERN.test(email.trim());
}

// ---------------------------------------------------------------------------------------
// Structs (field names are the API's, so server errors land on the same form fields)

/** A blank value passes the address rule, so an empty field reports only 'Required'. */
const email = () =>
  refine(requiredString(), 'email', (value) => value.trim().length === 0 || isEmailAddress(value) || INVALID_EMAIL_MESSAGE);

/**
 * The length rules of a new password. The server's other rules (not a repeated character or
 * short pattern, not like the e-mail, not a common password) come back as its 422 details.
 */
const newPassword = () =>
  refine(
    refine(requiredString(), 'passwordTooShort', (value) => value.trim().length === 0 || passwordLength(value) >= PASSWORD_MIN_LENGTH || PASSWORD_TOO_SHORT_MESSAGE),
    'passwordTooLong',
    (value) => passwordLength(value) <= PASSWORD_MAX_LENGTH || PASSWORD_TOO_LONG_MESSAGE,
  );

/** Sign-in checks presence only: whatever else is wrong, the server answers the one failure message. */
export const signInStruct = object({
  email: requiredString(),
  password: requiredString(),
});
export type SignInValues = Infer<typeof signInStruct>;

export const signUpStruct = object({
  name: optional(string()),
  email: email(),
  password: newPassword(),
});
export type SignUpValues = Infer<typeof signUpStruct>;

const passwordPair = object({
  password: newPassword(),
  password_confirmation: requiredString(),
});

/** The confirmation must repeat the password; the failure points at the confirmation. */
function confirmed<T extends { password: string; password_confirmation: string }, S>(struct: Struct<T, S>) {
  return refine(struct, 'passwordConfirmed', (value) =>
    value.password_confirmation.length === 0 || value.password === value.password_confirmation
      ? true
      : { message: PASSWORD_MISMATCH_MESSAGE, path: ['password_confirmation'] },
  );
}

export const newPasswordStruct = confirmed(passwordPair);
export type NewPasswordValues = Infer<typeof newPasswordStruct>;

export const acceptInvitationStruct = confirmed(
  object({
    name: requiredString(),
    password: newPassword(),
    password_confirmation: requiredString(),
  }),
);
export type AcceptInvitationValues = Infer<typeof acceptInvitationStruct>;

export const resetRequestStruct = object({
  email: matching(requiredString(), 'simpleEmail', SIMPLE_EMAIL_PATTERN, INVALID_EMAIL_MESSAGE),
});
export type ResetRequestValues = Infer<typeof resetRequestStruct>;

/** Invite a colleague: POST /users {email, name}. */
export const inviteUserStruct = object({
  name: requiredString(),
  email: email(),
});
export type InviteUserValues = Infer<typeof inviteUserStruct>;
