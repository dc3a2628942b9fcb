import { describe, expect, it } from 'vitest';
import { runBench } from '../helpers/runBench';

/**
 * `npm run bench:report` small, end to end, so the benchmark cannot rot: the server as
 * `npm start` starts it, a report of 6 sections over 12 months computed, 1 s of load on the API,
 * its peer and /health with 10 connections, one cold and one warm render in Chromium and the
 * sign-in page's JavaScript.
 */

describe('npm run bench:report', () => {
  it('runs every piece on a small report and prints the JSON line last', async () => {
    // On the engine this test run is for (CI's second pass runs the server tests on PostgreSQL).
    const engine = process.env.DATABASE_URL ? ['--engine', 'postgresql', '--postgres-url', process.env.DATABASE_URL] : [];
    const { code, stdout, stderr } = await runBench('report.ts', ['--sections', '6', '--months', '12', '--connections', '10', '--duration', '1', '--warmup', '0', '--warm-runs', '1', ...engine]);
    expect(code, `${stdout}\n${stderr}`).toBe(0);
    const last = JSON.parse(stdout.trim().split('\n').at(-1) as string) as Record<string, unknown>;
    expect(Object.keys(last).slice(0, 7)).toEqual(['bench', 'sections', 'api_p99_ms', 'render_ms', 'initial_js_kb_gz', 'peer_p99_ms', 'api_ratio']);
    expect(last).toMatchObject({ bench: 'report', sections: 6, months: 12, engine: process.env.DATABASE_URL ? 'postgresql' : 'pglite', api_non2xx: 0, api_errors: 0, peer_non2xx: 0, peer_errors: 0 });
    for (const key of ['api_p99_ms', 'render_ms', 'initial_js_kb_gz', 'peer_p99_ms', 'api_ratio', 'api_rps', 'peer_rps', 'health_rps', 'compute_ms', 'render_cold_ms']) expect(last[key], key).toBeTypeOf('number');
    expect(last.api_requests as number).toBeGreaterThan(0);
    expect(last.initial_js_kb_gz as number).toBeGreaterThan(0);
    expect(stdout).toMatch(/warm 1: 6 sections drawn at \d+ ms/);
    expect(stdout).toMatch(/initial JS of \/sign_in .*: \d+ files/);
  }, 240_000);
});
