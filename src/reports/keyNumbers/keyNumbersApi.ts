import type { ApiClient } from '../../api/client';
import { apiKey } from '../../api/queries';

/** A key number as `GET /business_reports/by_secret/key_numbers` answers it. */
export type KeyNumber = NonNullable<Awaited<ReturnType<typeof listCall>>['data']>['items'][number];

/** Which section's number: what POST and DELETE name. */
export interface KeyNumberRef {
  section_id: string;
  definition_id: string;
}

/** One key number's identity. */
export const keyOf = (ref: KeyNumberRef) => `${ref.section_id}:${ref.definition_id}`;

/** The spec's message for a change that did not save. */
export const KEY_NUMBER_SAVE_FAILURE = 'We could not save your changes. Please try again.';

function listCall(client: ApiClient, secret: string, signal?: AbortSignal) {
  return client.GET('/business_reports/by_secret/key_numbers', { params: { query: { secret } }, signal });
}

/** The cache key of a report's key numbers (by the report's secret). */
export const keyNumbersKey = (secret: string) => apiKey('/business_reports/by_secret/key_numbers', { secret });

/** A failed call (the strip shows or toasts it). */
export class KeyNumberCallError extends Error {
  override name = 'KeyNumberCallError';
}

/** The key numbers calls of one report, by its secret. */
export function keyNumbersApi(client: ApiClient, secret: string) {
  return {
    async list(signal?: AbortSignal): Promise<KeyNumber[]> {
      const { data } = await listCall(client, secret, signal);
      if (!data) throw new KeyNumberCallError('We could not fetch key numbers');
      return data.items;
    },
    /** Adds the section's number; answers the whole list. */
    async add(ref: KeyNumberRef): Promise<KeyNumber[]> {
      const { data } = await client.POST('/business_reports/by_secret/key_numbers', { body: { secret, ...ref } });
      if (!data) throw new KeyNumberCallError(KEY_NUMBER_SAVE_FAILURE);
      return data.items;
    },
    async remove(ref: KeyNumberRef): Promise<void> {
      const { response } = await client.DELETE('/business_reports/by_secret/key_numbers', { body: { secret, ...ref } });
      if (!response.ok) throw new KeyNumberCallError(KEY_NUMBER_SAVE_FAILURE);
    },
  };
}

export type KeyNumbersApi = ReturnType<typeof keyNumbersApi>;
