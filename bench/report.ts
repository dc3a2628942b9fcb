import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib';
import { randomBytes } from 'node:crypto';
import os, { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { periodEndingIn } from '../models/reportRange';
import { DEFAULT_REPORT_DEFINITIONS } from '../server/metrics/definitions/catalogue';
import { API_PREFIX } from '../server/version';
import { loadTest, mustAllSucceed, type LoadResult } from './support/httpLoad';
import { GZIP_LEVEL, launchChromium, measureInitialJs, measureRender } from './support/reportBrowser';
import { postgresDatabase, startBenchServer, type BenchServer } from './support/reportServer';
import { DEFAULT_POSTGRES_ADMIN_URL } from './support/snapshotRead';

/**
 * `npm run bench:report [-- --quick] [--connections 100] [--duration 20] [--engine pglite|postgresql] [--postgres-url URL]`
 *
 * The report page end to end (issue 6), against the product's own server started as
 * `npm start` starts it (SPA build checked, demo account seeded) on a fresh database:
 *
 * - api_p99_ms: p99 latency of `GET /api/v11/business_reports/by_secret` for a report of 20
 *   sections over 72 months, once computed, under `--connections` concurrent keep-alive clients
 *   for `--duration` s (autocannon; the token and a browser's Accept-Encoding, no If-None-Match).
 *   Its peer, in the same run, on the same server process and under the same load: the same
 *   answer's bytes as sent, written as a static file into dist/ and served by the SPA's
 *   @fastify/static, so api_ratio is what finding and answering the report costs over shipping
 *   its bytes. `GET /api/v11/health` (one `select 1`) is loaded too: the floor of any route.
 * - render_ms: from navigation to six section cards drawn on `/reports/{secret}` in Chromium
 *   (median of the warm runs; the cold run apart).
 * - initial_js_kb_gz: gzip size of all the JavaScript the sign-in page loads.
 *
 * Progress lines first; the last line is one JSON object:
 * {"bench":"report","sections":20,"api_p99_ms":…,"render_ms":…,"initial_js_kb_gz":…,"peer_p99_ms":…,"api_ratio":…,…}
 * Targets: api_p99_ms <= 50, render_ms <= 1000, initial_js_kb_gz <= 250.
 */

const { values: args } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    connections: { type: 'string', default: '100' },
    duration: { type: 'string' },
    warmup: { type: 'string' },
    sections: { type: 'string', default: '20' },
    months: { type: 'string', default: '72' },
    'warm-runs': { type: 'string', default: '3' },
    viewport: { type: 'string', default: '1440x2000' },
    engine: { type: 'string', default: 'pglite' },
    'postgres-url': { type: 'string', default: DEFAULT_POSTGRES_ADMIN_URL },
  },
});

const TARGETS = { api_p99_ms: 50, render_ms: 1000, initial_js_kb_gz: 250 };
const CONNECTIONS = Number(args.connections);
const DURATION_S = Number(args.duration ?? (args.quick ? 3 : 20));
const WARMUP_S = Number(args.warmup ?? (args.quick ? 1 : 3));
const SECTIONS = Number(args.sections);
const MONTHS = Number(args.months);
const WARM_RUNS = Number(args['warm-runs']);
const [VIEW_WIDTH, VIEW_HEIGHT] = args.viewport.split('x').map(Number) as [number, number];
/** Sections the render waits for: six (fewer when the report has fewer). */
const WANTED = Math.min(6, SECTIONS);
const IDLE_MS = 500;
/** What Chromium sends. */
const ACCEPT_ENCODING = 'gzip, deflate, br, zstd';

for (const [name, value] of Object.entries({ CONNECTIONS, DURATION_S, WARMUP_S, SECTIONS, MONTHS, WARM_RUNS, VIEW_WIDTH, VIEW_HEIGHT })) {
  if (!Number.isFinite(value) || value < 0) throw new Error(`bad ${name}: ${value}`);
}
if (SECTIONS < 1 || SECTIONS > 60) throw new Error('--sections must be 1 to 60 (the API takes at most 60)');
if (WARM_RUNS < 1) throw new Error('--warm-runs must be at least 1');
if (args.engine !== 'pglite' && args.engine !== 'postgresql') throw new Error('--engine must be pglite or postgresql');

const log = (line: string) => process.stdout.write(`${line}\n`);
const loadAverage = () => os.loadavg().map((l) => l.toFixed(2)).join(', ');
const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[middle] as number) : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
};
const round1 = (value: number) => Math.round(value * 10) / 10;
const round2 = (value: number) => Math.round(value * 100) / 100;

interface SectionView {
  id: string;
  definition_id: string;
  data_type: string;
  recalculation_status: string;
  error: string | null;
  periods: unknown[];
  segments: { series: { data_points: unknown[] }[] }[];
}
interface ReportView {
  id: string;
  recalculation_status: string;
  sections: SectionView[];
}

/** A GET whose body comes back as sent (fetch would decode it). */
function rawGet(url: string, headers: Record<string, string>): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers }, (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          const status = response.statusCode ?? 0;
          if (status < 200 || status > 299) reject(new Error(`GET ${url} answered ${status}`));
          else resolve({ status, headers: response.headers, body: Buffer.concat(chunks) });
        });
        response.on('error', reject);
      })
      .on('error', reject);
  });
}

async function api<T>(base: string, method: string, route: string, token: string | null, body?: unknown): Promise<{ status: number; json: T; headers: Headers; bytes: number }> {
  const response = await fetch(`${base}${API_PREFIX}${route}`, {
    method,
    headers: { ...(token && { authorization: `Bearer ${token}` }), ...(body !== undefined && { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${route} answered ${response.status}: ${text.slice(0, 500)}`);
  return { status: response.status, json: (text ? JSON.parse(text) : null) as T, headers: response.headers, bytes: Buffer.byteLength(text) };
}

/** Polls GET by_secret until the report and each of its sections are computed; the report and the ms waited. */
async function computed(base: string, token: string, secret: string, timeoutMs = 600_000): Promise<{ view: ReportView; ms: number }> {
  const started = performance.now();
  for (;;) {
    const { json: view } = await api<ReportView>(base, 'GET', `/business_reports/by_secret?secret=${secret}`, token);
    if (view.recalculation_status === 'failed') throw new Error(`the report's recalculation failed: ${JSON.stringify(view.sections.map((s) => [s.definition_id, s.error]))}`);
    if (view.recalculation_status !== 'recalculating' && view.sections.every((s) => s.recalculation_status !== 'recalculating')) return { view, ms: performance.now() - started };
    if (performance.now() - started > timeoutMs) throw new Error(`the report was still recalculating after ${timeoutMs / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Throws unless every section is computed, without error, with one period per month and data points. */
function mustHaveData(view: ReportView): void {
  if (view.sections.length !== SECTIONS) throw new Error(`the report has ${view.sections.length} sections, not ${SECTIONS}`);
  for (const section of view.sections) {
    const points = section.segments.reduce((sum, segment) => sum + segment.series.reduce((n, series) => n + series.data_points.length, 0), 0);
    const problem =
      section.recalculation_status !== 'recalculated'
        ? `status ${section.recalculation_status}`
        : section.error
          ? `error ${section.error}`
          : section.data_type !== 'cohort' && section.periods.length !== MONTHS
            ? `${section.periods.length} periods`
            : points === 0
              ? 'no data points'
              : null;
    if (problem) throw new Error(`section ${section.definition_id} (${section.data_type}) has no data: ${problem}`);
  }
}

function describeLoad(name: string, result: LoadResult, cpuMs: number): string {
  return (
    `  ${name}: p50 ${result.p50_ms} ms, p99 ${result.p99_ms} ms, mean ${result.mean_ms} ms, max ${result.max_ms} ms; ${result.rps} requests/s ` +
    `(${result.requests} requests, ${result.non2xx} non-2xx, ${result.errors} errors, ${result.timeouts} timeouts); ${(result.bytes_per_response / 1024).toFixed(1)} KB per answer; ` +
    `server CPU ${(cpuMs / Math.max(1, result.requests)).toFixed(2)} ms per request`
  );
}

async function main(): Promise<void> {
  log(
    `report bench: ${SECTIONS} sections over ${MONTHS} months, ${CONNECTIONS} connections for ${DURATION_S} s (after ${WARMUP_S} s of warm-up), ${args.engine}; ` +
      `node ${process.version}, ${os.cpus().length} CPUs, load ${loadAverage()}`,
  );
  const dir = mkdtempSync(path.join(tmpdir(), 'subscope-bench-report-'));
  const cleanups: (() => Promise<void> | void)[] = [() => rmSync(dir, { recursive: true, force: true })];
  const cleanup = async () => {
    for (const step of cleanups.splice(0).reverse()) {
      try {
        await step();
      } catch (error) {
        process.stderr.write(`cleanup: ${(error as Error).message}\n`);
      }
    }
  };
  const onSignal = (signal: NodeJS.Signals) => {
    process.stderr.write(`${signal}: stopping the server and removing ${dir}\n`);
    void cleanup().finally(() => process.exit(130));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    let storage: { DATA_DIR: string; DATABASE_URL?: string } = { DATA_DIR: path.join(dir, 'data') };
    if (args.engine === 'postgresql') {
      const database = await postgresDatabase(args['postgres-url'], 'subscope_bench_report');
      cleanups.push(database.drop);
      storage = { ...storage, DATABASE_URL: database.url };
    }
    const bootStarted = performance.now();
    const server: BenchServer = await startBenchServer(storage, log);
    cleanups.push(server.stop);
    log(`server up at ${server.base} in ${((performance.now() - bootStarted) / 1000).toFixed(1)} s (SPA build checked, demo seeded)`);
    const { base } = server;

    // Sign in as the demo account's owner (seeded by the first start).
    const signIn = await api<unknown>(base, 'POST', '/users/sign_in', null, {
      user: { email: process.env.DEMO_EMAIL || 'demo@subscope.dev', password: process.env.DEMO_PASSWORD || 'subscope-demo-2026' },
    });
    const token = (signIn.headers.get('authorization') ?? '').replace(/^Bearer /, '');
    if (!token) throw new Error('sign-in answered no token');
    // The demo's own reports are computed as the server starts: let that finish first.
    const waitStarted = performance.now();
    for (;;) {
      const { json } = await api<{ items: { secret: string; recalculation_status: string }[] }>(base, 'GET', '/business_reports/latest', token);
      if (json.items.every((item) => item.recalculation_status !== 'recalculating')) break;
      if (performance.now() - waitStarted > 600_000) throw new Error('the demo reports were still recalculating after 600 s');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }

    // The report: the catalogue's default twenty sections (MRR through booked revenue: line,
    // stacked and bar charts and two cohorts), repeated when more are asked for.
    const definitions = Array.from({ length: SECTIONS }, (_, k) => DEFAULT_REPORT_DEFINITIONS[k % DEFAULT_REPORT_DEFINITIONS.length] as string);
    const created = await api<{ id: string; secret: string }>(base, 'POST', '/business_reports', token, { title: 'Bench report', sections: definitions.map((definition_id) => ({ definition_id })) });
    const { id, secret } = created.json;
    await computed(base, token, secret);
    const now = new Date();
    const period = periodEndingIn({ year: now.getUTCFullYear(), month: now.getUTCMonth() + 1 }, MONTHS);
    await api(base, 'PUT', `/business_reports/${id}`, token, { period });
    await computed(base, token, secret);
    const refreshStarted = performance.now();
    await api(base, 'POST', `/business_reports/${id}/refresh`, token);
    const { view } = await computed(base, token, secret);
    const computeMs = performance.now() - refreshStarted;
    mustHaveData(view);
    const types = Object.entries(view.sections.reduce<Record<string, number>>((count, s) => ({ ...count, [s.data_type]: (count[s.data_type] ?? 0) + 1 }), {}));
    log(
      `report ${id}: ${view.sections.length} sections (${types.map(([type, n]) => `${n} ${type}`).join(', ')}), ` +
        `${period.start_year}-${String(period.start_month).padStart(2, '0')} to ${period.end_year}-${String(period.end_month).padStart(2, '0')}; ` +
        `refresh computed in ${Math.round(computeMs)} ms (POST refresh until GET by_secret says done)`,
    );

    // The load sends what a browser sends: the token and Accept-Encoding (no If-None-Match: every
    // answer is a full 200). One answer first: its bytes as sent, then unloaded latency.
    const byUrl = `${base}${API_PREFIX}/business_reports/by_secret?secret=${secret}`;
    const headers = { authorization: `Bearer ${token}`, 'accept-encoding': ACCEPT_ENCODING };
    const wire = await rawGet(byUrl, headers);
    const encoding = wire.headers['content-encoding'] ?? 'identity';
    const json = encoding === 'gzip' ? gunzipSync(wire.body) : encoding === 'br' ? brotliDecompressSync(wire.body) : encoding === 'deflate' ? inflateSync(wire.body) : wire.body;
    if ((JSON.parse(json.toString()) as ReportView).sections.length !== SECTIONS) throw new Error('GET by_secret answered another report');
    const single: number[] = [];
    for (let k = 0; k < 30; k++) {
      const started = performance.now();
      await rawGet(byUrl, headers);
      single.push(performance.now() - started);
    }
    const singleMs = round2(median(single.slice(10)));
    log(
      `GET by_secret (Accept-Encoding: ${ACCEPT_ENCODING}) answers ${(json.length / 1024).toFixed(1)} KB of JSON as ${(wire.body.length / 1024).toFixed(1)} KB (${encoding}); ` +
        `one request at a time: median ${singleMs} ms (of 20 after 10 warm-up requests)`,
    );

    // The peer: the same bytes (as sent) in a static file of the SPA's folder, served by the same process.
    const peerName = `bench-report-peer-${randomBytes(6).toString('hex')}.json`;
    const peerFile = path.resolve(import.meta.dirname, '..', 'dist', peerName);
    writeFileSync(peerFile, wire.body);
    cleanups.push(() => rmSync(peerFile, { force: true }));
    const peerUrl = `${base}/${peerName}`;
    const peerWire = await rawGet(peerUrl, { 'accept-encoding': ACCEPT_ENCODING });
    if (!peerWire.body.equals(wire.body)) throw new Error(`the static peer ${peerUrl} answered ${peerWire.body.length} bytes, not the report's ${wire.body.length}`);

    const options = { connections: CONNECTIONS, durationS: DURATION_S, warmupS: WARMUP_S };
    log(`load: ${CONNECTIONS} connections, ${DURATION_S} s each after ${WARMUP_S} s of warm-up (autocannon in this process; load ${loadAverage()})`);
    const measure = async (name: string, url: string, withAuth: boolean) => {
      let cpuBefore = 0;
      let clientBefore = process.cpuUsage();
      const result = await loadTest(url, {
        ...options,
        headers: withAuth ? headers : { 'accept-encoding': ACCEPT_ENCODING },
        onMeasureStart: () => {
          cpuBefore = server.cpuMs();
          clientBefore = process.cpuUsage();
        },
      });
      const cpuMs = server.cpuMs() - cpuBefore;
      const client = process.cpuUsage(clientBefore);
      log(`${describeLoad(name, result, cpuMs)}; client (autocannon) CPU ${((client.user + client.system) / 1000 / Math.max(1, result.requests)).toFixed(2)} ms per request`);
      mustAllSucceed(name, result);
      return { result, cpuPerRequest: cpuMs / Math.max(1, result.requests) };
    };
    const ours = await measure('GET by_secret', byUrl, true);
    // dist/ is the build's output folder: a build by another process (npm start, e2e) empties it.
    if (!existsSync(peerFile)) {
      log(`  ${peerFile} is gone (dist/ was rebuilt by another process meanwhile): written again`);
      writeFileSync(peerFile, wire.body);
    }
    const peer = await measure('static file of the same bytes (peer)', peerUrl, false).catch((error: unknown) => {
      if (!existsSync(peerFile)) throw new Error(`${(error as Error).message}: ${peerFile} was removed during the run (dist/ rebuilt by another process?)`, { cause: error });
      throw error;
    });
    const health = await measure('GET health (select 1)', `${base}${API_PREFIX}/health`, false);
    log(`  load average after: ${loadAverage()}; the server's peak RSS ${server.peakRssMb()} MB`);

    // The browser.
    const browser = await launchChromium();
    cleanups.push(() => browser.close());
    log(`render: /reports/{secret} in Chromium ${browser.version()}, viewport ${VIEW_WIDTH}x${VIEW_HEIGHT}, until ${WANTED} section cards are drawn (1 cold run, ${WARM_RUNS} warm)`);
    const render = await measureRender(browser, { base, secret, token, wanted: WANTED, warmRuns: WARM_RUNS, viewport: { width: VIEW_WIDTH, height: VIEW_HEIGHT } }, log);
    const renderMs = median(render.warm.map((run) => run.render_ms));
    const files = await measureInitialJs(browser, base, IDLE_MS);
    const initialKb = round1(files.reduce((sum, file) => sum + file.gzipBytes, 0) / 1024);
    log(`initial JS of /sign_in (fresh context; until load + ${IDLE_MS} ms without requests; gzip level ${GZIP_LEVEL}): ${files.length} files, ${initialKb} KB gzipped, ${round1(files.reduce((sum, file) => sum + file.bytes, 0) / 1024)} KB raw`);
    for (const file of files) log(`  ${(file.gzipBytes / 1024).toFixed(1).padStart(7)} KB gz ${(file.bytes / 1024).toFixed(1).padStart(8)} KB raw  ${new URL(file.url).pathname}`);

    const result = {
      bench: 'report',
      sections: SECTIONS,
      api_p99_ms: ours.result.p99_ms,
      render_ms: Math.round(renderMs),
      initial_js_kb_gz: initialKb,
      peer_p99_ms: peer.result.p99_ms,
      api_ratio: round2(ours.result.p99_ms / Math.max(1, peer.result.p99_ms)),
      api_p50_ms: ours.result.p50_ms,
      api_mean_ms: ours.result.mean_ms,
      api_rps: ours.result.rps,
      api_requests: ours.result.requests,
      api_non2xx: ours.result.non2xx,
      api_errors: ours.result.errors,
      api_single_ms: singleMs,
      api_cpu_ms_per_request: round2(ours.cpuPerRequest),
      peer_rps: peer.result.rps,
      peer_non2xx: peer.result.non2xx,
      peer_errors: peer.result.errors,
      health_p99_ms: health.result.p99_ms,
      health_rps: health.result.rps,
      response_kb: round1(json.length / 1024),
      response_wire_kb: round1(wire.body.length / 1024),
      response_encoding: encoding,
      compute_ms: Math.round(computeMs),
      render_cold_ms: render.cold.render_ms,
      render_warm_ms: render.warm.map((run) => run.render_ms),
      render_data_ms: median(render.warm.map((run) => run.data_ms ?? 0)),
      render_busy_ms: median(render.warm.map((run) => run.main_thread_ms.task)),
      viewport: `${VIEW_WIDTH}x${VIEW_HEIGHT}`,
      initial_js_files: files.length,
      gzip_level: GZIP_LEVEL,
      months: MONTHS,
      connections: CONNECTIONS,
      duration_s: DURATION_S,
      engine: args.engine,
    };
    const met = (key: keyof typeof TARGETS) => `${key} ${result[key]} (target <= ${TARGETS[key]}: ${result[key] <= TARGETS[key] ? 'met' : 'MISSED'})`;
    log(`${met('api_p99_ms')}, ${met('render_ms')}, ${met('initial_js_kb_gz')}; api_ratio ${result.api_ratio} (by_secret p99 / static file of the same bytes p99)`);
    await cleanup();
    console.log(JSON.stringify(result));
  } finally {
    await cleanup();
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

await main();
