import { dictionary } from '@zxcvbn-ts/language-common';

/**
 * The bundled common-password list: the ~49,000 most common passwords of leaked password
 * sets that zxcvbn-ts ships (`@zxcvbn-ts/language-common`, MIT, lower case). Loaded once, on
 * first use.
 */
let common: ReadonlySet<string> | undefined;

/** True when the password (compared after NFKC, case-insensitively) is on the list. */
export function isCommonPassword(password: string): boolean {
  common ??= new Set(dictionary['passwords-common']);
  return common.has(password.normalize('NFKC').toLowerCase());
}
