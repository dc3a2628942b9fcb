import { cpSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
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
import { LoadRecorder, alternateRounds, describeSpread, median, methodFields, roundedSpread, spread } from './support/rounds';
import { DEFAULT_POSTGRES_ADMIN_URL } from './support/snapshotRead';

/**
 * `npm run bench:report [-- --quick] [--rounds 8] [--connections 100] [--duration 4] [--engine pglite|postgresql] [--postgres-url URL] [--pglite-data-dir DIR]`
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
 *   its bytes. The two alternate in `--rounds` rounds after a warm-up round of `--warmup` s
 *   each (bench/support/rounds.ts); api_ratio is the median of the rounds' ratios, with its
 *   spread. `GET /api/v11/health` (one `select 1`) is loaded once after: the floor of any route.
 * - render_ms: from navigation to six section cards drawn on `/reports/{secret}` in Chromium
 *   (median of the warm runs, with its spread; the cold run apart), with the renderer's
 *   main-thread busy time (Chromium's TaskDuration) and CPU time (/proc), which other work on
 *   the machine distorts less.
 * - initial_js_kb_gz: gzip size of all the JavaScript the sign-in page loads.
 *
 * `--pglite-data-dir`: a PGlite data directory copied in as the server's DATA_DIR (the smoke
 * test's: a cluster as a first boot leaves it before the demo seed), which spares the untimed
 * start initdb and the rate load.
 *
 * Progress lines first; the last line is one JSON object:
 * {"bench":"report","sections":20,"api_p99_ms":…,"render_ms":…,"initial_js_kb_gz":…,"peer_p99_ms":…,"api_ratio":…,…}
 * Targets: api_p99_ms <= 50, render_ms <= 1000, initial_js_kb_gz <= 250.
 */

const { values: args } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    connections: { type: 'string', default: '100' },
    rounds: { type: 'string' },
    duration: { type: 'string' },
    warmup: { type: 'string' },
    sections: { type: 'string', default: '20' },
    months: { type: 'string', default: '72' },
    'warm-runs': { type: 'string', default: '7' },
    viewport: { type: 'string', default: '1440x2000' },
    engine: { type: 'string', default: 'pglite' },
    'postgres-url': { type: 'string', default: DEFAULT_POSTGRES_ADMIN_URL },
    'pglite-data-dir': { type: 'string' },
  },
});

const TARGETS = { api_p99_ms: 50, render_ms: 1000, initial_js_kb_gz: 250 };
const CONNECTIONS = Number(args.connections);
/** Rounds of ours then the peer (the order reversed every round), each `DURATION_S` of load, after a warm-up round of `WARMUP_S` each (none when 0). */
const ROUNDS = Number(args.rounds ?? (args.quick ? 4 : 8));
const DURATION_S = Number(args.duration ?? (args.quick ? 2 : 4));
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

for (const [name, value] of Object.entries({ CONNECTIONS, ROUNDS, DURATION_S, WARMUP_S, SECTIONS, MONTHS, WARM_RUNS, VIEW_WIDTH, VIEW_HEIGHT })) {
  if (!Number.isFinite(value) || value < 0) throw new Error(`bad ${name}: ${value}`);
}
if (SECTIONS < 1 || SECTIONS > 60) throw new Error('--sections must be 1 to 60 (the API takes at most 60)');
if (WARM_RUNS < 1) throw new Error('--warm-runs must be at least 1');
if (!Number.isInteger(ROUNDS) || ROUNDS < 1) throw new Error('--rounds must be a whole number >= 1');
if (args.engine !== 'pglite' && args.engine !== 'postgresql') throw new Error('--engine must be pglite or postgresql');

const log = (line: string) => process.stdout.write(`${line}\n`);
const loadAverage = () => os.loadavg().map((l) => l.toFixed(2)).join(', ');
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
  const load = new LoadRecorder();
  log(
    `report bench: ${SECTIONS} sections over ${MONTHS} months; ${ROUNDS} rounds of ${CONNECTIONS} connections for ${DURATION_S} s on the API and on its peer (after a warm-up round of ${WARMUP_S} s each), ${args.engine}; ` +
      `node ${process.version}, ${load.cpus} CPUs, load ${load.before.join(', ')}`,
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
    } else if (args['pglite-data-dir']) {
      cpSync(args['pglite-data-dir'], storage.DATA_DIR, { recursive: true });
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

    log(`load: ${CONNECTIONS} connections (autocannon in this process; load ${loadAverage()})`);
    /** One closed-loop run of `durationS` s on `url`, no warm-up of its own (the rounds have one). */
    const measure = async (name: string, url: string, withAuth: boolean, durationS: number, warmupS = 0, warmupRound = false) => {
      let cpuBefore = 0;
      let clientBefore = process.cpuUsage();
      const result = await loadTest(url, {
        connections: CONNECTIONS,
        durationS,
        warmupS,
        headers: withAuth ? headers : { 'accept-encoding': ACCEPT_ENCODING },
        onMeasureStart: () => {
          cpuBefore = server.cpuMs();
          clientBefore = process.cpuUsage();
        },
      });
      const cpuMs = server.cpuMs() - cpuBefore;
      const client = process.cpuUsage(clientBefore);
      // autocannon stops at the deadline with requests still queued in the server: one request
      // to /health, answered once those are, keeps them out of the next contender's run.
      const settleStarted = performance.now();
      await rawGet(`${base}${API_PREFIX}/health`, {});
      log(
        `  ${describeLoad(name, result, cpuMs)}; client (autocannon) CPU ${((client.user + client.system) / 1000 / Math.max(1, result.requests)).toFixed(2)} ms per request; ` +
          `the server answered /health ${Math.round(performance.now() - settleStarted)} ms after the run`,
      );
      if (!warmupRound) mustAllSucceed(name, result);
      else if (result.non2xx > 0 || result.errors > 0) throw new Error(`${name} (warm-up): ${result.non2xx} non-2xx answers and ${result.errors} errors`);
      return { result, cpuPerRequest: cpuMs / Math.max(1, result.requests) };
    };
    // dist/ is the build's output folder: a build by another process (npm start, e2e) empties it.
    const peerThere = () => {
      if (existsSync(peerFile)) return;
      log(`  ${peerFile} is gone (dist/ was rebuilt by another process meanwhile): written again`);
      writeFileSync(peerFile, wire.body);
    };
    const oursRuns: Awaited<ReturnType<typeof measure>>[] = [];
    const peerRuns: Awaited<ReturnType<typeof measure>>[] = [];
    const warmupRounds = WARMUP_S > 0 ? 1 : 0;
    const rounds = await alternateRounds({
      contenders: [
        {
          name: 'api',
          run: async (round) => {
            const run = await measure('GET by_secret', byUrl, true, round < warmupRounds ? WARMUP_S : DURATION_S, 0, round < warmupRounds);
            if (round >= warmupRounds) oursRuns.push(run);
            return run.result.p99_ms;
          },
        },
        {
          name: 'peer',
          run: async (round) => {
            peerThere();
            const run = await measure('static file of the same bytes (peer)', peerUrl, false, round < warmupRounds ? WARMUP_S : DURATION_S, 0, round < warmupRounds).catch((error: unknown) => {
              if (!existsSync(peerFile)) throw new Error(`${(error as Error).message}: ${peerFile} was removed during the run (dist/ rebuilt by another process?)`, { cause: error });
              throw error;
            });
            if (round >= warmupRounds) peerRuns.push(run);
            return run.result.p99_ms;
          },
        },
      ],
      ratios: { api_ratio: ['api', 'peer'] },
      rounds: ROUNDS,
      warmupRounds,
      load,
      log,
      digits: 0,
    });
    const apiRatio = rounds.ratios.api_ratio as (typeof rounds.ratios)[string];
    const health = await measure('GET health (select 1)', `${base}${API_PREFIX}/health`, false, DURATION_S, WARMUP_S);
    log(`  load average after: ${loadAverage()}; the server's peak RSS ${server.peakRssMb()} MB`);
    // Per-round figures other than p99: their medians.
    const mid = (runs: typeof oursRuns, pick: (run: (typeof oursRuns)[number]) => number) => median(runs.map(pick));

    // The browser.
    const browser = await launchChromium();
    cleanups.push(() => browser.close());
    log(`render: /reports/{secret} in Chromium ${browser.version()}, viewport ${VIEW_WIDTH}x${VIEW_HEIGHT}, until ${WANTED} section cards are drawn (1 cold run, ${WARM_RUNS} warm)`);
    const render = await measureRender(browser, { base, secret, token, wanted: WANTED, warmRuns: WARM_RUNS, viewport: { width: VIEW_WIDTH, height: VIEW_HEIGHT } }, log);
    const renderWall = spread(render.warm.map((run) => run.render_ms));
    const renderBusy = spread(render.warm.map((run) => run.main_thread_ms.task));
    const renderCpu = spread(render.warm.map((run) => run.cpu_ms.main));
    const renderProcessCpu = spread(render.warm.map((run) => run.cpu_ms.process));
    log(
      `render over ${WARM_RUNS} warm runs: wall ${describeSpread(renderWall, 0, ' ms', 'runs')}; main thread busy (TaskDuration) ${describeSpread(renderBusy, 0, ' ms', 'runs')}; ` +
        `renderer main-thread CPU ${describeSpread(renderCpu, 0, ' ms', 'runs')}, all its threads ${describeSpread(renderProcessCpu, 0, ' ms', 'runs')}`,
    );
    const files = await measureInitialJs(browser, base, IDLE_MS);
    const initialKb = round1(files.reduce((sum, file) => sum + file.gzipBytes, 0) / 1024);
    log(`initial JS of /sign_in (fresh context; until load + ${IDLE_MS} ms without requests; gzip level ${GZIP_LEVEL}): ${files.length} files, ${initialKb} KB gzipped, ${round1(files.reduce((sum, file) => sum + file.bytes, 0) / 1024)} KB raw`);
    for (const file of files) log(`  ${(file.gzipBytes / 1024).toFixed(1).padStart(7)} KB gz ${(file.bytes / 1024).toFixed(1).padStart(8)} KB raw  ${new URL(file.url).pathname}`);

    const machine = load.finish();
    const result = {
      bench: 'report',
      sections: SECTIONS,
      // Medians over the rounds (api, peer) and over the warm runs (render).
      api_p99_ms: rounds.figures.api.median,
      render_ms: Math.round(renderWall.median),
      initial_js_kb_gz: initialKb,
      peer_p99_ms: rounds.figures.peer.median,
      api_ratio: round2(apiRatio.median),
      api_ratio_spread: roundedSpread(apiRatio, 2),
      api_p99_spread: roundedSpread(rounds.figures.api, 1),
      peer_p99_spread: roundedSpread(rounds.figures.peer, 1),
      api_p50_ms: mid(oursRuns, (run) => run.result.p50_ms),
      api_mean_ms: round2(mid(oursRuns, (run) => run.result.mean_ms)),
      api_rps: round1(mid(oursRuns, (run) => run.result.rps)),
      api_requests: oursRuns.reduce((sum, run) => sum + run.result.requests, 0),
      api_non2xx: oursRuns.reduce((sum, run) => sum + run.result.non2xx, 0),
      api_errors: oursRuns.reduce((sum, run) => sum + run.result.errors, 0),
      api_single_ms: singleMs,
      api_cpu_ms_per_request: round2(mid(oursRuns, (run) => run.cpuPerRequest)),
      peer_rps: round1(mid(peerRuns, (run) => run.result.rps)),
      peer_non2xx: peerRuns.reduce((sum, run) => sum + run.result.non2xx, 0),
      peer_errors: peerRuns.reduce((sum, run) => sum + run.result.errors, 0),
      health_p99_ms: health.result.p99_ms,
      health_rps: health.result.rps,
      response_kb: round1(json.length / 1024),
      response_wire_kb: round1(wire.body.length / 1024),
      response_encoding: encoding,
      compute_ms: Math.round(computeMs),
      render_cold_ms: render.cold.render_ms,
      render_warm_ms: render.warm.map((run) => run.render_ms),
      render_spread: roundedSpread(renderWall, 0),
      render_data_ms: median(render.warm.map((run) => run.data_ms ?? 0)),
      render_busy_ms: Math.round(renderBusy.median),
      render_busy_spread: roundedSpread(renderBusy, 0),
      render_cpu_ms: Math.round(renderCpu.median),
      render_cpu_spread: roundedSpread(renderCpu, 0),
      render_process_cpu_ms: Math.round(renderProcessCpu.median),
      viewport: `${VIEW_WIDTH}x${VIEW_HEIGHT}`,
      initial_js_files: files.length,
      gzip_level: GZIP_LEVEL,
      months: MONTHS,
      connections: CONNECTIONS,
      duration_s: DURATION_S,
      engine: args.engine,
      ...methodFields(rounds, machine),
      warm_runs: WARM_RUNS,
    };
    const met = (key: keyof typeof TARGETS) => `${key} ${result[key]} (target <= ${TARGETS[key]}: ${result[key] <= TARGETS[key] ? 'met' : 'MISSED'})`;
    log(
      `${met('api_p99_ms')} (median of the rounds), ${met('render_ms')} (median of the warm runs), ${met('initial_js_kb_gz')}; ` +
        `api_ratio (by_secret p99 / static file of the same bytes p99) median ${describeSpread(apiRatio, 2)}`,
    );
    log(load.describe());
    await cleanup();
    console.log(JSON.stringify(result));
  } finally {
    await cleanup();
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

await main();
