import { DEFAULT_PROVIDER_URLS, type ProviderUrls } from '../../../server/config';
import type { SyncPayment } from '../../../server/integrations/types';

/** Provider URLs with Chargebee at the fake (its first path segment is the site). */
export function urlsWithChargebee(fakeUrl: string): ProviderUrls {
  return { ...DEFAULT_PROVIDER_URLS, chargebee: `${fakeUrl}/{site}` };
}

/** A fixed 32-byte key for tests that open what they sealed. */
export const TEST_SECRETS_KEY = Buffer.alloc(32, 7);

/** A month's recurring payment of 12.00 EUR on invoice INV-1, for the writers' tests. */
export const syncPayment = (externalId: string, changes: Partial<SyncPayment> = {}): SyncPayment => ({
  externalId,
  customerExternalId: 'cb_1',
  startedAt: '2025-01-01',
  endedAt: '2025-02-01',
  totalValue: 1200,
  monthlyAmount: 1200,
  currency: 'EUR',
  invoiceNumber: 'INV-1',
  productKey: 'pro',
  itemType: 'recurring',
  quantity: 1,
  discount: null,
  ...changes,
});
