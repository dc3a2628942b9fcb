import { DEFAULT_PROVIDER_URLS, type ProviderUrls } from '../../../server/config';

/** Provider URLs with Chargebee at the fake (its first path segment is the site). */
export function urlsWithChargebee(fakeUrl: string): ProviderUrls {
  return { ...DEFAULT_PROVIDER_URLS, chargebee: `${fakeUrl}/{site}` };
}

/** A fixed 32-byte key for tests that open what they sealed. */
export const TEST_SECRETS_KEY = Buffer.alloc(32, 7);
