import { describe, expect, it } from 'vitest';
import { isSafeRedirectPath, pathAfterSignIn } from '../../../machines/auth/redirect';

describe('the redirect after sign-in', () => {
  it('goes to the remembered path, with its query', () => {
    expect(pathAfterSignIn('/customers/42?tab=payments')).toBe('/customers/42?tab=payments');
    expect(pathAfterSignIn('/reports/shared/abc?currency=eur')).toBe('/reports/shared/abc?currency=eur');
  });

  it("goes to '/' when nothing is remembered", () => {
    expect(pathAfterSignIn(null)).toBe('/');
    expect(pathAfterSignIn(undefined)).toBe('/');
    expect(pathAfterSignIn('')).toBe('/');
  });

  it.each(['https://evil.example/phish', '//evil.example', '/\\evil.example', 'javascript:alert(1)', 'customers'])(
    "never leaves the app: %s goes to '/'",
    (path) => {
      expect(isSafeRedirectPath(path)).toBe(false);
      expect(pathAfterSignIn(path)).toBe('/');
    },
  );

  it.each(['/sign_in', '/sign_in?x=1', '/sign_up', '/reset_password', '/reset_password/tok', '/invitation/tok', '/sign_in_via_token/jwt'])(
    "never returns to the sign-in area: %s goes to '/'",
    (path) => {
      expect(pathAfterSignIn(path)).toBe('/');
    },
  );

  it('does not mistake a path that merely starts like the sign-in area for it', () => {
    expect(pathAfterSignIn('/sign_in_history')).toBe('/sign_in_history');
  });
});
