import { isCommonPassword } from './commonPasswords';

/** Password length bounds, counted in characters after NFKC normalisation. */
export const PASSWORD_MIN_LENGTH = 8;
export const PASSWORD_MAX_LENGTH = 128;

export const PASSWORD_MESSAGES = {
  blank: "can't be blank",
  tooShort: `is too short (minimum is ${PASSWORD_MIN_LENGTH} characters)`,
  tooLong: `is too long (maximum is ${PASSWORD_MAX_LENGTH} characters)`,
  tooCommon: 'is too common',
  confirmation: "doesn't match Password",
} as const;

/**
 * What is wrong with a new password, as the detail of a 422 entry (undefined when it is
 * acceptable). The same password is hashed after NFKC (server/auth/password.ts), so a
 * password typed on another keyboard in another normal form still matches.
 */
export function passwordProblem(password: string | undefined): string | undefined {
  if (!password) return PASSWORD_MESSAGES.blank;
  const length = [...password.normalize('NFKC')].length;
  if (length < PASSWORD_MIN_LENGTH) return PASSWORD_MESSAGES.tooShort;
  if (length > PASSWORD_MAX_LENGTH) return PASSWORD_MESSAGES.tooLong;
  if (isCommonPassword(password)) return PASSWORD_MESSAGES.tooCommon;
  return undefined;
}
