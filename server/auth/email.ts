/** E-mail addresses are compared trimmed and case-insensitively, and stored lower-case. */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

export const EMAIL_MAX_LENGTH = 254;

/** `local@domain.tld` with no spaces: catches typos, not a full RFC 5322 parser. */
const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export function looksLikeEmail(normalized: string): boolean {
  return normalized.length <= EMAIL_MAX_LENGTH && EMAIL_PATTERN.test(normalized);
}
