import { ProviderHttpError, type ProviderFetch } from './types';

/**
 * HTTP to providers (every provider's calls go through this): 429 and 5xx answers and network
 * errors are retried with exponential backoff and jitter, honouring `Retry-After` (seconds or
 * an HTTP date) when the provider sends it, each wait capped; after `maxAttempts` the last
 * answer is returned as is (a 429/5xx Response: the provider turns it into its error) or the
 * network error thrown. An abort of `signal` stops both the request and the wait.
 */

export interface ProviderFetchOptions {
  signal?: AbortSignal;
  /** Tries in all, the first included (default 5). */
  maxAttempts?: number;
  /** The first backoff wait; it doubles each try (default 500 ms). Tests make it short. */
  baseDelayMs?: number;
  /** Longest single wait, Retry-After included (default 30 s). */
  maxDelayMs?: number;
}

export const DEFAULT_MAX_ATTEMPTS = 5;
export const DEFAULT_BASE_DELAY_MS = 500;
export const DEFAULT_MAX_DELAY_MS = 30_000;

/** Base delay of the fetches of sync runs (PROVIDER_RETRY_BASE_MS in the environment; tests and e2e make it short). */
export function defaultBaseDelayMs(): number {
  const value = Number(process.env.PROVIDER_RETRY_BASE_MS);
  return Number.isFinite(value) && value >= 0 && process.env.PROVIDER_RETRY_BASE_MS !== undefined && process.env.PROVIDER_RETRY_BASE_MS !== '' ? value : DEFAULT_BASE_DELAY_MS;
}

/** Milliseconds a Retry-After header asks for, or null when absent or unreadable. */
export function retryAfterMs(header: string | null, now = Date.now()): number | null {
  if (!header) return null;
  const trimmed = header.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Number(trimmed) * 1000;
  const at = Date.parse(trimmed);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

const retryable = (status: number) => status === 429 || status >= 500;

function wait(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
      return;
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason instanceof Error ? signal.reason : new Error('aborted'));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

export function providerFetch(options: ProviderFetchOptions = {}): ProviderFetch {
  const maxAttempts = Math.max(1, options.maxAttempts ?? DEFAULT_MAX_ATTEMPTS);
  const baseDelayMs = options.baseDelayMs ?? defaultBaseDelayMs();
  const maxDelayMs = options.maxDelayMs ?? DEFAULT_MAX_DELAY_MS;
  return async (url, init = {}) => {
    const signal = init.signal && options.signal ? AbortSignal.any([init.signal, options.signal]) : (init.signal ?? options.signal);
    for (let attempt = 1; ; attempt += 1) {
      let response: Response;
      try {
        response = await fetch(url, { ...init, signal });
      } catch (error) {
        if (signal?.aborted || attempt >= maxAttempts) throw error;
        await wait(Math.min(maxDelayMs, backoff(baseDelayMs, attempt)), signal ?? undefined);
        continue;
      }
      if (!retryable(response.status) || attempt >= maxAttempts) return response;
      const asked = retryAfterMs(response.headers.get('retry-after'));
      // Drain the refused answer so its connection is reused.
      await response.arrayBuffer().catch(() => undefined);
      await wait(Math.min(maxDelayMs, asked ?? backoff(baseDelayMs, attempt)), signal ?? undefined);
    }
  };
}

function backoff(baseDelayMs: number, attempt: number): number {
  const exponential = baseDelayMs * 2 ** (attempt - 1);
  return exponential / 2 + Math.random() * (exponential / 2);
}

/** Reads a provider's answer as JSON; a non-2xx answer becomes a ProviderHttpError with its body. */
export async function jsonOf<T>(response: Response): Promise<T> {
  const text = await response.text();
  if (!response.ok) throw new ProviderHttpError(response.status, text);
  return JSON.parse(text) as T;
}
