/**
 * The API token (a JWT) of the signed-in user, kept in localStorage so a reload stays signed
 * in. When storage is unavailable the token lives in memory for this page only.
 */
export const TOKEN_STORAGE_KEY = 'subscope.token';

let memoryToken: string | null = null;

export const tokenStore = {
  get(): string | null {
    try {
      return window.localStorage.getItem(TOKEN_STORAGE_KEY) ?? memoryToken;
    } catch {
      return memoryToken;
    }
  },
  set(token: string): void {
    try {
      window.localStorage.setItem(TOKEN_STORAGE_KEY, token);
      memoryToken = null;
    } catch {
      memoryToken = token;
    }
  },
  clear(): void {
    memoryToken = null;
    try {
      window.localStorage.removeItem(TOKEN_STORAGE_KEY);
    } catch {
      // Nothing stored to clear.
    }
  },
};

export type TokenStore = typeof tokenStore;
