/** Where each way of signing in lands. */
export const HOME_PATH = '/';
export const SIGN_IN_PATH = '/sign_in';
export const AFTER_SIGN_UP_PATH = '/getting-started';
export const AFTER_INVITATION_PATH = '/getting-started';
export const AFTER_PASSWORD_RESET_PATH = '/';
export const AFTER_TOKEN_SIGN_IN_PATH = '/settings';

/** The sign-in area: never a destination after signing in (it would show the form again). */
const SIGN_IN_AREA = ['/sign_in', '/sign_up', '/reset_password', '/invitation', '/sign_in_via_token'];

function isSignInAreaPath(path: string): boolean {
  const pathname = path.split(/[?#]/)[0] ?? '';
  return SIGN_IN_AREA.some((prefix) => pathname === prefix || pathname.startsWith(`${prefix}/`));
}

/**
 * Whether a remembered path may be used as a redirect: a path of this app ('/…', not
 * '//host' or 'https://…', no backslash tricks) outside the sign-in area.
 */
export function isSafeRedirectPath(path: string | null | undefined): path is string {
  if (!path || !path.startsWith('/') || path.startsWith('//') || path.includes('\\')) return false;
  return !isSignInAreaPath(path);
}

/**
 * Sign-in success goes to the path saved as redirect-after-sign-in if there is one,
 * otherwise to '/'.
 */
export function pathAfterSignIn(redirectPath: string | null | undefined): string {
  return isSafeRedirectPath(redirectPath) ? redirectPath : HOME_PATH;
}
