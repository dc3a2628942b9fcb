import { fork } from 'node:child_process';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { generateBusiness, type DemoBusiness } from '../server/demo/generate';
import { computeSections } from '../server/metrics/definitions/computeSection';
import { computeMrrSeries } from '../server/metrics/mrrSeries';
import type { AccountSnapshot } from '../server/metrics/snapshot';
import { buildDemoSnapshot, ecbRateRows } from './support/demoSnapshot';
import { DuckMetrics, type DuckLoadCounts, type DuckMrrResult } from './support/duckdbMetrics';
import {
  END_MONTH,
  NOW,
  SCALES,
  TODAY,
  benchLine,
  bestOf,
  digest,
  duckRequest,
  engineRequest,
  reportRequests,
  sameDigest,
  type Scale,
  type SeriesDigest,
} from './support/metricsBench';
import { compareMrr } from './support/parity';
import { DEFAULT_POSTGRES_ADMIN_URL, measureSnapshotRead, type Seeder, type SnapshotEngine } from './support/snapshotRead';

/**
 * `npm run bench:metrics [-- --scale S|M] [--engines pglite,postgresql] [--postgres-url URL] [--seeder copy|seedDemoAccount]`
 *
 * The metrics engine against DuckDB on the same generated business (docs/metrics.md,
 * "Parity and benchmark"). This process generates the business, builds the engine's snapshot
 * and times our engine and a full report; DuckDB and the databases run in child processes
 * (one at a time), so each one's memory is its own and `rss_mb` is the engine's.
 * Progress lines first; the last line is one JSON object.
 */

const HERE = fileURLToPath(import.meta.url);

const { values: args } = parseArgs({
  options: {
    scale: { type: 'string', default: 'M' },
    engines: { type: 'string', default: 'pglite,postgresql' },
    'postgres-url': { type: 'string', default: DEFAULT_POSTGRES_ADMIN_URL },
    seeder: { type: 'string', default: 'copy' },
    role: { type: 'string', default: 'main' },
    engine: { type: 'string' },
  },
});

if (!(args.scale in SCALES)) throw new Error(`--scale must be one of ${Object.keys(SCALES).join(', ')}`);
if (args.seeder !== 'copy' && args.seeder !== 'seedDemoAccount') throw new Error('--seeder must be copy or seedDemoAccount');
const seeder: Seeder = args.seeder;
const scale = args.scale as Scale;
const { customers, months } = SCALES[scale];

const mb = (bytes: number) => Math.round(bytes / 1024);
const peakRssMb = () => mb(process.resourceUsage().maxRSS);
const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
const log = (line: string) => console.log(line);
const loadAverage = () => os.loadavg().map((load) => load.toFixed(2)).join(', ');

function generate(): DemoBusiness {
  return generateBusiness({ customers, months, endMonth: END_MONTH, today: TODAY });
}

// ------------------------------------------------------------------ child processes

interface DuckMessage {
  kind: 'duckdb';
  counts: DuckLoadCounts;
  loadMs: number;
  runs: number[];
  bestMs: number;
  result: DuckMrrResult;
  rssMb: number;
}

interface SnapshotMessage {
  kind: 'snapshot';
  engine: SnapshotEngine;
  seedMs: number;
  snapshotMs: number;
  tablesMs: number;
  writeMs: number;
  payments: number;
  digest: SeriesDigest;
  tablesDigest: SeriesDigest;
  rssMb: number;
}

type ChildMessage = DuckMessage | SnapshotMessage;

function send(message: ChildMessage): Promise<void> {
  return new Promise((resolve, reject) => {
    if (!process.send) throw new Error('a child role needs an IPC channel');
    process.send(message, undefined, {}, (error) => (error ? reject(error) : resolve()));
  });
}

/** DuckDB: the same business, loaded with appenders (not timed), then the SQL pipeline timed on two threads. */
async function duckdbChild(): Promise<void> {
  const duck = await DuckMetrics.open({ threads: 2 });
  await duck.connection.run('SET threads = 2');
  const loadStart = performance.now();
  // The generated rows are garbage once loaded.
  const counts = await duck.load(generate());
  const loadMs = performance.now() - loadStart;
  log(`  duckdb: loaded ${counts.payments.toLocaleString('en')} payments, ${counts.items.toLocaleString('en')} items, ${counts.rates.toLocaleString('en')} ECB rates in ${seconds(loadMs)}`);
  const timing = await bestOf(3, () => duck.computeMrr(duckRequest(months)));
  duck.close();
  await send({ kind: 'duckdb', counts, loadMs, runs: timing.runs, bestMs: timing.bestMs, result: timing.result, rssMb: peakRssMb() });
}

/** A fresh database of one engine: seed the account, read its snapshot (timed), and compute the same series from it. */
async function snapshotChild(engine: SnapshotEngine): Promise<void> {
  const read = await measureSnapshotRead({ engine, seeder, customers, months, now: NOW, adminUrl: args['postgres-url'], log });
  const result = computeMrrSeries(read.snapshot, engineRequest(months));
  const fromTables = computeMrrSeries(read.fromTables, engineRequest(months));
  await send({
    kind: 'snapshot',
    engine,
    seedMs: read.seedMs,
    snapshotMs: read.snapshotMs,
    tablesMs: read.tablesMs,
    writeMs: read.writeMs,
    payments: read.payments,
    digest: digest(result),
    tablesDigest: digest(fromTables),
    rssMb: peakRssMb(),
  });
}

function runChild<T extends ChildMessage>(role: string, extra: string[] = []): Promise<T> {
  return new Promise((resolve, reject) => {
    const child = fork(HERE, ['--role', role, '--scale', scale, '--postgres-url', args['postgres-url'], '--seeder', seeder, ...extra], { serialization: 'advanced' });
    let message: T | undefined;
    child.on('message', (m) => (message = m as T));
    child.on('error', reject);
    child.on('exit', (code) => (message && code === 0 ? resolve(message) : reject(new Error(`the ${role} child exited with ${code}`))));
  });
}

async function postgresReachable(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url });
  try {
    await client.connect();
    await client.query('select 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}

// ------------------------------------------------------------------ main

/** The engine's snapshot of the generated business; the generated rows are garbage afterwards. */
async function generatedSnapshot(): Promise<AccountSnapshot> {
  let start = performance.now();
  const business = generate();
  log(`generated ${business.payments.length.toLocaleString('en')} payments in ${seconds(performance.now() - start)}`);
  start = performance.now();
  const rates = await ecbRateRows(['USD', 'PLN']);
  const snapshot = buildDemoSnapshot(business, rates);
  log(`built the snapshot (${snapshot.records.count.toLocaleString('en')} payment versions) in ${seconds(performance.now() - start)}`);
  return snapshot;
}

async function main(): Promise<void> {
  log(`metrics bench, scale ${scale}: ${customers.toLocaleString('en')} customers over ${months} months to ${TODAY}; node ${process.version}, ${os.cpus().length} CPUs`);
  log(`load average before: ${loadAverage()} (other work on the machine skews every timing)`);
  const snapshot = await generatedSnapshot();

  const request = engineRequest(months);
  const ours = await bestOf(3, () => computeMrrSeries(snapshot, request));
  log(`ours: MRR and movements, total and by product, ${ours.result.periods.length} months: ${ours.runs.map((ms) => ms.toFixed(0)).join(', ')} ms (warm-up first), best ${ours.bestMs.toFixed(0)} ms`);
  const requests = reportRequests(months);
  const report = await bestOf(3, () => computeSections(snapshot, requests));
  log(`report: ${requests.length} sections: ${report.runs.map((ms) => ms.toFixed(0)).join(', ')} ms, best ${report.bestMs.toFixed(0)} ms`);
  const rssMb = peakRssMb();
  log(`peak RSS of this process (generation, snapshot, engine, report): ${rssMb} MB`);

  const duck = await runChild<DuckMessage>('duckdb');
  const differences = compareMrr(ours.result, duck.result);
  const equal = differences.length === 0;
  log(`duckdb (2 threads): ${duck.runs.map((ms) => ms.toFixed(0)).join(', ')} ms, best ${duck.bestMs.toFixed(0)} ms; its process peaked at ${duck.rssMb} MB`);
  log(equal ? `equal: every month, series, total and product agree to the minor unit` : `NOT EQUAL:\n  ${differences.join('\n  ')}`);

  const snapshotMs: Record<SnapshotEngine, number | null> = { pglite: null, postgresql: null };
  const tablesMs: Record<SnapshotEngine, number | null> = { pglite: null, postgresql: null };
  let snapshotsAgree = true;
  for (const engine of args.engines.split(',').filter((e) => e !== '') as SnapshotEngine[]) {
    if (engine !== 'pglite' && engine !== 'postgresql') throw new Error(`unknown engine '${String(engine)}'`);
    if (engine === 'postgresql' && !(await postgresReachable(args['postgres-url']))) {
      log(`postgresql: not reachable at ${args['postgres-url']}; not measured`);
      continue;
    }
    const read = await runChild<SnapshotMessage>('snapshot', ['--engine', engine]);
    const same = sameDigest(read.digest, digest(ours.result)) && sameDigest(read.tablesDigest, digest(ours.result));
    snapshotsAgree &&= same;
    snapshotMs[engine] = read.snapshotMs;
    tablesMs[engine] = read.tablesMs;
    log(
      `${engine}: seeded ${read.payments.toLocaleString('en')} payments (${seeder === 'copy' ? 'COPY, bench/support/bulkSeed.ts' : 'seedDemoAccount'}) in ${seconds(read.seedMs)}; ` +
        `loadSnapshot from the tables ${read.tablesMs.toFixed(0)} ms, writing the stored copy ${read.writeMs.toFixed(0)} ms, from the stored copy ${read.snapshotMs.toFixed(0)} ms; ` +
        `the series of both ${same ? 'equal' : 'DIFFER FROM'} the in-memory snapshot's; its process peaked at ${read.rssMb} MB`,
    );
  }

  const targets: [string, boolean][] = [
    ['ratio <= 0.5', ours.bestMs / duck.bestMs <= 0.5],
    ['report_ms <= 2 x duckdb_ms', report.bestMs <= 2 * duck.bestMs],
    ['rss_mb <= 1500', rssMb <= 1500],
    ['snapshot from PGlite < 3 s (stored copy)', snapshotMs.pglite === null || snapshotMs.pglite < 3_000],
    ['snapshot from PostgreSQL < 1.5 s (stored copy)', snapshotMs.postgresql === null || snapshotMs.postgresql < 1_500],
  ];
  log(`load average after: ${loadAverage()}`);
  log(`targets: ${targets.map(([name, met]) => `${name} ${met ? 'met' : 'MISSED'}`).join('; ')}`);
  if (!equal || !snapshotsAgree) process.exitCode = 1;
  console.log(
    benchLine({
      scale,
      ours_ms: ours.bestMs,
      duckdb_ms: duck.bestMs,
      report_ms: report.bestMs,
      rss_mb: rssMb,
      equal,
      snapshot_pglite_ms: snapshotMs.pglite,
      snapshot_postgres_ms: snapshotMs.postgresql,
      snapshot_pglite_tables_ms: tablesMs.pglite,
      snapshot_postgres_tables_ms: tablesMs.postgresql,
    }),
  );
}

const role = args.role;
if (role === 'duckdb') await duckdbChild();
else if (role === 'snapshot') await snapshotChild(args.engine as SnapshotEngine);
else await main();
