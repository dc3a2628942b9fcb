import { isCommonPassword } from './commonPasswords';

/** Password length bounds, counted in characters after NFKC normalisation. */
export const PASSWORD_MIN_LENGTH = 8;
export const PASSWORD_MAX_LENGTH = 128;

export const PASSWORD_MESSAGES = {
  blank: "can't be blank",
  tooShort: `is too short (minimum is ${PASSWORD_MIN_LENGTH} characters)`,
  tooLong: `is too long (maximum is ${PASSWORD_MAX_LENGTH} characters)`,
  repetitive: 'is too repetitive',
  likeEmail: 'is too similar to your e-mail',
  tooCommon: 'is too common',
  confirmation: "doesn't match Password",
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
 * What is wrong with a new password, as the detail of a 422 entry (undefined when it is
 * acceptable): blank (or only white space), too short or too long, one character or a short
 * pattern repeated, like the account's e-mail (`email`, when known), or a common password.
 * The same password is hashed after NFKC (server/auth/password.ts), so a password typed on
 * another keyboard in another normal form still matches. The SPA checks the length only
 * (models/auth.ts) and shows the other details as the server answers them.
 */
export function passwordProblem(password: string | undefined, context: { email?: string | undefined } = {}): string | undefined {
  if (!password || password.trim() === '') return PASSWORD_MESSAGES.blank;
  const length = [...password.normalize('NFKC')].length;
  if (length < PASSWORD_MIN_LENGTH) return PASSWORD_MESSAGES.tooShort;
  if (length > PASSWORD_MAX_LENGTH) return PASSWORD_MESSAGES.tooLong;
  if (isRepetitivePassword(password)) return PASSWORD_MESSAGES.repetitive;
  if (context.email && passwordResemblesEmail(password, context.email)) return PASSWORD_MESSAGES.likeEmail;
  if (isCommonPassword(password)) return PASSWORD_MESSAGES.tooCommon;
  return undefined;
}
