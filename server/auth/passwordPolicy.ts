import { API_FIELD_DETAILS, PASSWORD_MIN_LENGTH } from '../../models/auth';
import { isCommonPassword } from './commonPasswords';

/**
 * The details of a refused new password. Blank and the length bounds are the rules of the
 * password structs of models/auth.ts, which the routes run first; the others are the server's
 * own (weakPasswordProblem).
 */
export const PASSWORD_MESSAGES = {
  blank: API_FIELD_DETAILS.required,
  tooShort: API_FIELD_DETAILS.passwordTooShort,
  tooLong: API_FIELD_DETAILS.passwordTooLong,
  repetitive: 'is too repetitive',
  likeEmail: 'is too similar to your e-mail',
  tooCommon: 'is too common',
  confirmation: API_FIELD_DETAILS.passwordConfirmed,
} as const;

/** Local parts at least this long may not appear anywhere in a password; shorter ones only not as all of it. */
export const EMAIL_LOCAL_PART_MIN_CONTAINED = 4;

/** How the rules compare: NFKC, lower-case (so 'ＡＢＣ' and 'abc' are alike). */
const fold = (value: string): string => value.normalize('NFKC').toLowerCase();

/**
 * One unit repeated, whole at least twice and the last copy possibly cut, compared
 * case-insensitively: 'aaaaaaaa', 'abcabcabc', 'xyXYxyXYx'. Only units shorter than the
 * minimum length count: repeating a unit adds next to nothing, so such a password is as weak as
 * a too short one (a repeated long passphrase is not refused).
 */
export function isRepetitivePassword(password: string): boolean {
  const chars = [...fold(password)];
  for (let unit = 1; unit < PASSWORD_MIN_LENGTH && unit * 2 <= chars.length; unit += 1) {
    if (chars.every((char, k) => k < unit || char === chars[k - unit])) return true;
  }
  return false;
}

/**
 * The password is, or contains, the account's e-mail address or its local part
 * (case-insensitively, after NFKC). A local part shorter than 4 characters only counts as the
 * whole password, so 'al@example.com' does not forbid every password with 'al' in it.
 */
export function passwordResemblesEmail(password: string, email: string): boolean {
  const typed = fold(password).trim();
  const address = fold(email).trim();
  if (!typed || !address) return false;
  const at = address.lastIndexOf('@');
  const local = at > 0 ? address.slice(0, at) : address;
  if (typed.includes(address) || typed === local) return true;
  return [...local].length >= EMAIL_LOCAL_PART_MIN_CONTAINED && typed.includes(local);
}

/**
 * What else is wrong with a new password of an acceptable length, as the detail of a 422 entry
 * (undefined when it is acceptable): one character or a short pattern repeated, like the
 * account's e-mail (`email`, when known), or a common password. Blank and too short or too long
 * are the struct's rules (models/auth.ts), checked before this. The same password is hashed
 * after NFKC (server/auth/password.ts), so a password typed on another keyboard in another
 * normal form still matches. The SPA checks the length only and shows these details as the
 * server answers them.
 */
export function weakPasswordProblem(password: string, context: { email?: string | undefined } = {}): string | undefined {
  if (isRepetitivePassword(password)) return PASSWORD_MESSAGES.repetitive;
  if (context.email && passwordResemblesEmail(password, context.email)) return PASSWORD_MESSAGES.likeEmail;
  if (isCommonPassword(password)) return PASSWORD_MESSAGES.tooCommon;
  return undefined;
}
