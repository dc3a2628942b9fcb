/** E-mail addresses are compared trimmed and case-insensitively, and stored lower-case. */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}
