/** Where sign-in success goes: the path a visitor was on when they chose to sign in. */
export const REDIRECT_AFTER_SIGN_IN_KEY = 'subscope.redirectAfterSignIn';

export function saveRedirectAfterSignIn(path: string): void {
  try {
    window.localStorage.setItem(REDIRECT_AFTER_SIGN_IN_KEY, path);
  } catch {
    // Storage can be unavailable (private mode, quota); sign-in then goes to '/'.
  }
}

export function readRedirectAfterSignIn(): string | null {
  try {
    return window.localStorage.getItem(REDIRECT_AFTER_SIGN_IN_KEY);
  } catch {
    return null;
  }
}

export function clearRedirectAfterSignIn(): void {
  try {
    window.localStorage.removeItem(REDIRECT_AFTER_SIGN_IN_KEY);
  } catch {
    // Nothing stored to clear.
  }
}
