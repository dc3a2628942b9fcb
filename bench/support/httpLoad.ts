import autocannon from 'autocannon';

/**
 * Closed-loop HTTP load with autocannon (`connections` keep-alive connections, each sending its
 * next request when the last answer arrived), after a warm-up of the same shape whose numbers
 * are dropped. Latencies are autocannon's (ms, from its HDR histogram).
 */
export interface LoadResult {
  url: string;
  p50_ms: number;
  p99_ms: number;
  mean_ms: number;
  max_ms: number;
  rps: number;
  requests: number;
  ok: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  /** Mean bytes per answer (body and headers). */
  bytes_per_response: number;
}

export interface LoadOptions {
  connections: number;
  durationS: number;
  warmupS: number;
  headers?: Record<string, string>;
  /** Called after the warm-up, just before the measured run (to read the server's counters). */
  onMeasureStart?: () => void;
}

async function run(url: string, options: LoadOptions, durationS: number): Promise<autocannon.Result> {
  return autocannon({ url, connections: options.connections, duration: durationS, headers: options.headers ?? {}, timeout: 30 });
}

export async function loadTest(url: string, options: LoadOptions): Promise<LoadResult> {
  if (options.warmupS > 0) {
    const warm = await run(url, options, options.warmupS);
    if (warm.non2xx > 0 || warm.errors > 0) throw new Error(`warm-up of ${url}: ${warm.non2xx} non-2xx answers (${JSON.stringify(warm.statusCodeStats ?? {})}), ${warm.errors} errors`);
  }
  options.onMeasureStart?.();
  const result = await run(url, options, options.durationS);
  const requests = result['1xx'] + result['2xx'] + result['3xx'] + result['4xx'] + result['5xx'];
  return {
    url,
    p50_ms: result.latency.p50,
    p99_ms: result.latency.p99,
    mean_ms: Math.round(result.latency.mean * 100) / 100,
    max_ms: result.latency.max,
    rps: Math.round((requests / result.duration) * 10) / 10,
    requests,
    ok: result['2xx'],
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    bytes_per_response: requests > 0 ? Math.round(result.throughput.total / requests) : 0,
  };
}

/** Throws when any answer was not 2xx or any request failed: a bench of error pages measures nothing. */
export function mustAllSucceed(name: string, result: LoadResult): void {
  if (result.non2xx > 0 || result.errors > 0 || result.ok === 0) {
    throw new Error(`${name}: ${result.non2xx} non-2xx answers and ${result.errors} errors (${result.timeouts} timeouts) of ${result.requests} requests to ${result.url}`);
  }
}
