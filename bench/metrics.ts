import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { generateBusiness, type DemoBusiness } from '../server/demo/generate';
import { computeSections } from '../server/metrics/definitions/computeSection';
import { computeMrrSeries, type MrrSeriesResult } from '../server/metrics/mrrSeries';
import type { AccountSnapshot } from '../server/metrics/snapshot/columns';
import type { SectionResult } from '../server/metrics/definitions/types';
import { buildDemoSnapshot, ecbRateRows } from './support/demoSnapshot';
import { DuckMetrics, type DuckLoadCounts, type DuckMrrResult } from './support/duckdbMetrics';
import {
  END_MONTH,
  NOW,
  firstMonth,
  SCALES,
  TODAY,
  benchLine,
  digest,
  duckRequest,
  engineRequest,
  reportRequests,
  sameDigest,
  type Scale,
  type SeriesDigest,
} from './support/metricsBench';
import { commandsFromParent, forkWithMailbox, sendToParent } from './support/childMailbox';
import { compareMrr } from './support/parity';
import { CUSTOM_SECTIONS, compareCustom, customRequests, duckCustomDigest, duckCustomRequests, engineCustomDigest, loadCustomInputs } from './support/customBench';
import { LoadRecorder, alternateRounds, describeSpread, type Spread } from './support/rounds';
import { DEFAULT_POSTGRES_ADMIN_URL, measureSnapshotRead, type Seeder, type SnapshotEngine } from './support/snapshotRead';

/**
 * `npm run bench:metrics [-- --scale S|M] [--rounds 10] [--engines pglite,postgresql] [--postgres-url URL] [--seeder copy|seedDemoAccount] [--pglite-template FILE]`
 *
 * The metrics engine against DuckDB on the same generated business (docs/metrics.md,
 * "Parity and benchmark"). This process generates the business, builds the engine's snapshot
 * and times our engine, a full report and a report of ten custom sections
 * (bench/support/customBench.ts); DuckDB runs in a child process of its own (its
 * memory its own, so `rss_mb` is the engine's), loaded once and asked over IPC for one run at a
 * time, so ours, the report and DuckDB alternate in rounds (bench/support/rounds.ts: a warm-up
 * round dropped, the order reversed every round, the median of the rounds' ratios with its
 * spread). The databases run in child processes afterwards, one at a time.
 * `--pglite-template`: a dump of a migrated PGlite cluster to start PGlite's data directory from
 * (the smoke test's; untimed setup either way).
 * Progress lines first; the last line is one JSON object.
 */

const HERE = fileURLToPath(import.meta.url);

const { values: args } = parseArgs({
  options: {
    scale: { type: 'string', default: 'M' },
    rounds: { type: 'string', default: '10' },
    engines: { type: 'string', default: 'pglite,postgresql' },
    'postgres-url': { type: 'string', default: DEFAULT_POSTGRES_ADMIN_URL },
    seeder: { type: 'string', default: 'copy' },
    role: { type: 'string', default: 'main' },
    engine: { type: 'string' },
    'pglite-template': { type: 'string' },
  },
});

if (!(args.scale in SCALES)) throw new Error(`--scale must be one of ${Object.keys(SCALES).join(', ')}`);
if (args.seeder !== 'copy' && args.seeder !== 'seedDemoAccount') throw new Error('--seeder must be copy or seedDemoAccount');
const seeder: Seeder = args.seeder;
const scale = args.scale as Scale;
const { customers, months } = SCALES[scale];
const ROUNDS = Number(args.rounds);
if (!Number.isInteger(ROUNDS) || ROUNDS < 1) throw new Error('--rounds must be a whole number >= 1');

const mb = (bytes: number) => Math.round(bytes / 1024);
const peakRssMb = () => mb(process.resourceUsage().maxRSS);
const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
const log = (line: string) => console.log(line);

function generate(): DemoBusiness {
  return generateBusiness({ customers, months, endMonth: END_MONTH, today: TODAY });
}

// ------------------------------------------------------------------ child processes

/** The DuckDB child's messages: loaded, then one per run asked for, then its peak RSS as it leaves. */
type DuckMessage =
  | { kind: 'duckdb-ready'; counts: DuckLoadCounts; loadMs: number }
  | { kind: 'duckdb-ran'; ms: number; result: DuckMrrResult | null }
  | { kind: 'duckdb-ran-custom'; ms: number; results: DuckMrrResult[] | null }
  | { kind: 'duckdb-done'; rssMb: number };

/** What the main process asks the DuckDB child: one run (its result sent back when `withResult`), or to leave. */
type DuckCommand = { kind: 'run' | 'run-custom'; withResult: boolean } | { kind: 'exit' };

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

const send = (message: ChildMessage): Promise<void> => sendToParent(message);

/**
 * DuckDB: the same business, loaded with appenders (not timed), then one timed run of the SQL
 * pipeline on two threads each time the main process asks, until it says exit.
 */
async function duckdbChild(): Promise<void> {
  const duck = await DuckMetrics.open({ threads: 2 });
  await duck.connection.run('SET threads = 2');
  const loadStart = performance.now();
  // The generated rows are garbage once loaded.
  const business = generate();
  const counts = await duck.load(business);
  await loadCustomInputs(duck, business);
  const loadMs = performance.now() - loadStart;
  const request = duckRequest(months);
  const customStatements = duckCustomRequests(request);
  const nextCommand = commandsFromParent<DuckCommand>();
  await send({ kind: 'duckdb-ready', counts, loadMs });
  for (;;) {
    const command = await nextCommand();
    if (command.kind === 'exit') break;
    if (command.kind === 'run-custom') {
      // One statement per custom section: its channel filter and its customer-attribute split, every series at once.
      const start = performance.now();
      const results: DuckMrrResult[] = [];
      for (const statement of customStatements) results.push(await duck.computeMrr(statement));
      const ms = performance.now() - start;
      await send({ kind: 'duckdb-ran-custom', ms, results: command.withResult ? results : null });
      continue;
    }
    const start = performance.now();
    const result = await duck.computeMrr(request);
    const ms = performance.now() - start;
    await send({ kind: 'duckdb-ran', ms, result: command.withResult ? result : null });
  }
  duck.close();
  await send({ kind: 'duckdb-done', rssMb: peakRssMb() });
  process.disconnect();
}

/** The DuckDB child, loaded and waiting: `run()` times one run in it, `close()` ends it and answers its peak RSS. */
async function startDuck(): Promise<{
  counts: DuckLoadCounts;
  loadMs: number;
  run: (withResult: boolean) => Promise<{ ms: number; result: DuckMrrResult | null }>;
  runCustom: (withResult: boolean) => Promise<{ ms: number; results: DuckMrrResult[] | null }>;
  close: () => Promise<number>;
}> {
  const child = forkWithMailbox<DuckMessage, DuckCommand>(HERE, ['--role', 'duckdb', '--scale', scale], 'duckdb');
  const ready = await child.next('duckdb-ready');
  return {
    counts: ready.counts,
    loadMs: ready.loadMs,
    run: async (withResult) => {
      child.send({ kind: 'run', withResult });
      const { ms, result } = await child.next('duckdb-ran');
      return { ms, result };
    },
    runCustom: async (withResult) => {
      child.send({ kind: 'run-custom', withResult });
      const { ms, results } = await child.next('duckdb-ran-custom');
      return { ms, results };
    },
    close: async () => {
      child.send({ kind: 'exit' });
      const { rssMb } = await child.next('duckdb-done');
      return rssMb;
    },
  };
}

/** A fresh database of one engine: seed the account, read its snapshot (timed), and compute the same series from it. */
async function snapshotChild(engine: SnapshotEngine): Promise<void> {
  const template = args['pglite-template'];
  const read = await measureSnapshotRead({ engine, seeder, customers, months, now: NOW, adminUrl: args['postgres-url'], log, ...(template ? { pgliteTemplate: template } : {}) });
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

function runChild<T extends SnapshotMessage>(role: string, extra: string[] = []): Promise<T> {
  return new Promise((resolve, reject) => {
    const template = args['pglite-template'] ? ['--pglite-template', args['pglite-template']] : [];
    const child = fork(HERE, ['--role', role, '--scale', scale, '--postgres-url', args['postgres-url'], '--seeder', seeder, ...template, ...extra], { serialization: 'advanced' });
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
  const load = new LoadRecorder();
  log(`metrics bench, scale ${scale}: ${customers.toLocaleString('en')} customers over ${months} months to ${TODAY}; ${ROUNDS} rounds after a warm-up; node ${process.version}, ${load.cpus} CPUs`);
  log(`load average before: ${load.before.join(', ')} (other work on the machine skews every timing; the rounds' median ratio less so)`);
  const snapshot = await generatedSnapshot();

  const duck = await startDuck();
  log(`duckdb (its own process, 2 threads): loaded ${duck.counts.payments.toLocaleString('en')} payments, ${duck.counts.items.toLocaleString('en')} items, ${duck.counts.rates.toLocaleString('en')} ECB rates in ${seconds(duck.loadMs)}`);

  const request = engineRequest(months);
  const requests = reportRequests(months);
  const custom = customRequests(firstMonth(months), END_MONTH, TODAY);
  // The last run's result of ours, the first of DuckDB's (the warm-up's): what parity compares.
  const results: { ours?: MrrSeriesResult; duckdb?: DuckMrrResult; custom?: SectionResult[]; duckdbCustom?: DuckMrrResult[] } = {};
  const timed = (run: () => unknown) => {
    const start = performance.now();
    run();
    return performance.now() - start;
  };
  log(
    `rounds: ours (MRR and movements, total and by product), report (${requests.length} sections), duckdb; ` +
      `custom (${CUSTOM_SECTIONS.length} custom sections of 3 series, each grouped by a customer attribute and filtered by the payment channel), duckdb_custom (one statement per section); the order reversed every round`,
  );
  const rounds = await alternateRounds({
    contenders: [
      { name: 'ours', run: () => timed(() => (results.ours = computeMrrSeries(snapshot, request))) },
      { name: 'report', run: () => timed(() => computeSections(snapshot, requests)) },
      {
        name: 'duckdb',
        run: async (round) => {
          const ran = await duck.run(round === 0);
          if (ran.result) results.duckdb = ran.result;
          return ran.ms;
        },
      },
      { name: 'custom', run: () => timed(() => (results.custom = computeSections(snapshot, custom))) },
      {
        name: 'duckdb_custom',
        run: async (round) => {
          const ran = await duck.runCustom(round === 0);
          if (ran.results) results.duckdbCustom = ran.results;
          return ran.ms;
        },
      },
    ],
    ratios: { ratio: ['ours', 'duckdb'], report_ratio: ['report', 'duckdb'], custom_ratio: ['custom', 'duckdb_custom'] },
    rounds: ROUNDS,
    load,
    log,
    digits: 0,
  });
  const duckRssMb = await duck.close();
  const rssMb = peakRssMb();
  log(`peak RSS of this process (generation, snapshot, engine, report): ${rssMb} MB; the duckdb process peaked at ${duckRssMb} MB`);

  if (!results.ours || !results.duckdb || !results.custom || !results.duckdbCustom) throw new Error('no result of ours or of DuckDB to compare');
  const differences = compareMrr(results.ours, results.duckdb);
  const equal = differences.length === 0;
  log(equal ? `equal: every month, series, total and product agree to the minor unit` : `NOT EQUAL:\n  ${differences.join('\n  ')}`);
  const customDifferences = compareCustom(engineCustomDigest(results.custom), duckCustomDigest(results.duckdbCustom));
  const customEqual = customDifferences.length === 0;
  const customSeries = engineCustomDigest(results.custom).size;
  log(
    customEqual
      ? `custom sections equal: ${customSeries} series (each section's series, total and every group) agree month by month to the minor unit`
      : `custom sections NOT EQUAL:\n  ${customDifferences.join('\n  ')}`,
  );
  const oursDigest = digest(results.ours);

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
    const same = sameDigest(read.digest, oursDigest) && sameDigest(read.tablesDigest, oursDigest);
    snapshotsAgree &&= same;
    snapshotMs[engine] = read.snapshotMs;
    tablesMs[engine] = read.tablesMs;
    log(
      `${engine}: seeded ${read.payments.toLocaleString('en')} payments (${seeder === 'copy' ? 'COPY, bench/support/bulkSeed.ts' : 'seedDemoAccount'}) in ${seconds(read.seedMs)}; ` +
        `loadSnapshot from the tables ${read.tablesMs.toFixed(0)} ms, writing the stored copy ${read.writeMs.toFixed(0)} ms, from the stored copy ${read.snapshotMs.toFixed(0)} ms; ` +
        `the series of both ${same ? 'equal' : 'DIFFER FROM'} the in-memory snapshot's; its process peaked at ${read.rssMb} MB`,
    );
  }

  const ratio = rounds.ratios.ratio as Spread;
  const reportRatio = rounds.ratios.report_ratio as Spread;
  const customRatio = rounds.ratios.custom_ratio as Spread;
  const machine = load.finish();
  // The targets on the rounds' median ratios, not on one run.
  const targets: [string, boolean][] = [
    ['ratio <= 0.5 (median)', ratio.median <= 0.5],
    ['report_ms <= 2 x duckdb_ms (median of report / duckdb)', reportRatio.median <= 2],
    ['custom_ratio <= 0.5 (median)', customRatio.median <= 0.5],
    ['rss_mb <= 1500', rssMb <= 1500],
    ['snapshot from PGlite < 3 s (stored copy)', snapshotMs.pglite === null || snapshotMs.pglite < 3_000],
    ['snapshot from PostgreSQL < 1.5 s (stored copy)', snapshotMs.postgresql === null || snapshotMs.postgresql < 1_500],
  ];
  log(`ratio (ours / duckdb): median ${describeSpread(ratio, 3)}; report / duckdb: median ${describeSpread(reportRatio, 3)}; custom / duckdb_custom: median ${describeSpread(customRatio, 3)}`);
  log(load.describe());
  log(`targets: ${targets.map(([name, met]) => `${name} ${met ? 'met' : 'MISSED'}`).join('; ')}`);
  if (!equal || !customEqual || !snapshotsAgree) process.exitCode = 1;
  console.log(
    benchLine({
      scale,
      ours_ms: rounds.figures.ours.median,
      duckdb_ms: rounds.figures.duckdb.median,
      ratio,
      report_ms: rounds.figures.report.median,
      report_ratio: reportRatio,
      rss_mb: rssMb,
      equal,
      snapshot_pglite_ms: snapshotMs.pglite,
      snapshot_postgres_ms: snapshotMs.postgresql,
      snapshot_pglite_tables_ms: tablesMs.pglite,
      snapshot_postgres_tables_ms: tablesMs.postgresql,
      custom_sections: CUSTOM_SECTIONS.length,
      custom_series: customSeries,
      custom_ms: rounds.figures.custom.median,
      duckdb_custom_ms: rounds.figures.duckdb_custom.median,
      custom_ratio: customRatio,
      custom_equal: customEqual,
      rounds,
      load: machine,
    }),
  );
}

const role = args.role;
if (role === 'duckdb') await duckdbChild();
else if (role === 'snapshot') await snapshotChild(args.engine as SnapshotEngine);
else await main();
