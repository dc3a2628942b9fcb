import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { DEMO_CUSTOMER_SEGMENTS, generateBusiness, type DemoBusiness } from '../server/demo/generate';
import { computeSections } from '../server/metrics/definitions/computeSection';
import type { SectionResult } from '../server/metrics/definitions/types';
import { computeMrrSeries, type MrrSeriesResult } from '../server/metrics/mrrSeries';
import type { AccountSnapshot } from '../server/metrics/snapshot/columns';
import { buildDemoSnapshot, ecbRateRows } from './support/demoSnapshot';
import { DuckMetrics, type DuckLoadCounts, type DuckMrrResult } from './support/duckdbMetrics';
import { BENCH_FILTERS, compareReportMrr, filterBenchLine, withFilter, type EngineContender, type FilterName, type PeerContender } from './support/filterBench';
import { END_MONTH, SCALES, TODAY, duckRequest, engineRequest, reportRequests, type Scale } from './support/metricsBench';
import { commandsFromParent, forkWithMailbox, sendToParent } from './support/childMailbox';
import { compareMrr } from './support/parity';
import { LoadRecorder, alternateRounds, describeSpread, spread, type Spread } from './support/rounds';

/**
 * `npm run bench:filter [-- --scale S|M] [--rounds 6]`
 *
 * The engine's report filter (METRICS.md section 8; server/metrics/filters.ts) against DuckDB
 * on the same generated business as `npm run bench:metrics` (its scales and its 20-section
 * report). In alternating rounds (bench/support/rounds.ts): the report unfiltered, the report
 * filtered on one customer segment value (time-sensitive, so it applies month by month), the
 * report filtered on one product, and DuckDB computing MRR, customers and every movement, total
 * and by product, under each filter, in a child process of its own (loaded once, asked over
 * IPC, the time taken inside it). The engine's series under each filter must equal DuckDB's
 * to the minor unit, and the filtered report's MRR the engine's series (exit 1 otherwise).
 * Progress lines first; the last line is one JSON object.
 */

const HERE = fileURLToPath(import.meta.url);

const { values: args } = parseArgs({
  options: {
    scale: { type: 'string', default: 'M' },
    rounds: { type: 'string', default: '6' },
    role: { type: 'string', default: 'main' },
  },
});

if (!(args.scale in SCALES)) throw new Error(`--scale must be one of ${Object.keys(SCALES).join(', ')}`);
const scale = args.scale as Scale;
const { customers, months } = SCALES[scale];
const ROUNDS = Number(args.rounds);
if (!Number.isInteger(ROUNDS) || ROUNDS < 1) throw new Error('--rounds must be a whole number >= 1');

const FILTER_NAMES: readonly FilterName[] = ['segment', 'product'];
const peakRssMb = () => Math.round(process.resourceUsage().maxRSS / 1024);
const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
const log = (line: string) => console.log(line);

function generate(): DemoBusiness {
  return generateBusiness({ customers, months, endMonth: END_MONTH, today: TODAY });
}

// ------------------------------------------------------------------ the DuckDB child

type DuckMessage =
  | { kind: 'duckdb-ready'; counts: DuckLoadCounts; segmentValues: number; loadMs: number }
  | { kind: 'duckdb-ran'; ms: number; result: DuckMrrResult | null }
  | { kind: 'duckdb-done'; rssMb: number };

type DuckCommand = { kind: 'run'; filter: FilterName; withResult: boolean } | { kind: 'exit' };

const send = (message: DuckMessage): Promise<void> => sendToParent(message);

/** The same business and its customer attribute histories, loaded with appenders (not timed); one timed run of the filtered SQL each time the main process asks. */
async function duckdbChild(): Promise<void> {
  const duck = await DuckMetrics.open({ threads: 2 });
  await duck.connection.run('SET threads = 2');
  const loadStart = performance.now();
  const business = generate();
  const counts = await duck.load(business);
  const segmentValues = await duck.loadCustomerSegments(DEMO_CUSTOMER_SEGMENTS, business.segmentValues);
  const loadMs = performance.now() - loadStart;
  const nextCommand = commandsFromParent<DuckCommand>();
  await send({ kind: 'duckdb-ready', counts, segmentValues, loadMs });
  for (;;) {
    const command = await nextCommand();
    if (command.kind === 'exit') break;
    const request = { ...duckRequest(months), filter: BENCH_FILTERS[command.filter].duck };
    const start = performance.now();
    const result = await duck.computeMrr(request);
    const ms = performance.now() - start;
    await send({ kind: 'duckdb-ran', ms, result: command.withResult ? result : null });
  }
  duck.close();
  await send({ kind: 'duckdb-done', rssMb: peakRssMb() });
  process.disconnect();
}

interface DuckChild {
  counts: DuckLoadCounts;
  segmentValues: number;
  loadMs: number;
  run: (filter: FilterName, withResult: boolean) => Promise<{ ms: number; result: DuckMrrResult | null }>;
  close: () => Promise<number>;
}

async function startDuck(): Promise<DuckChild> {
  const child = forkWithMailbox<DuckMessage, DuckCommand>(HERE, ['--role', 'duckdb', '--scale', scale], 'duckdb');
  const ready = await child.next('duckdb-ready');
  return {
    counts: ready.counts,
    segmentValues: ready.segmentValues,
    loadMs: ready.loadMs,
    run: async (filter, withResult) => {
      child.send({ kind: 'run', filter, withResult });
      const { ms, result } = await child.next('duckdb-ran');
      return { ms, result };
    },
    close: async () => {
      child.send({ kind: 'exit' });
      const { rssMb } = await child.next('duckdb-done');
      return rssMb;
    },
  };
}

// ------------------------------------------------------------------ main

async function generatedSnapshot(): Promise<AccountSnapshot> {
  let start = performance.now();
  const business = generate();
  log(`generated ${business.payments.length.toLocaleString('en')} payments, ${business.segmentValues.length.toLocaleString('en')} customer attribute values in ${seconds(performance.now() - start)}`);
  start = performance.now();
  const snapshot = buildDemoSnapshot(business, await ecbRateRows(['USD', 'PLN']));
  log(`built the snapshot (${snapshot.records.count.toLocaleString('en')} payment versions) in ${seconds(performance.now() - start)}`);
  return snapshot;
}

/** Customers at the last complete month of the range (the current month is not complete). */
function lastCompleteCustomers(result: MrrSeriesResult): number {
  const customersSeries = result.total.customers;
  return (customersSeries.at(-2) ?? customersSeries.at(-1) ?? 0) as number;
}

async function main(): Promise<void> {
  const load = new LoadRecorder();
  log(`filter bench, scale ${scale}: ${customers.toLocaleString('en')} customers over ${months} months to ${TODAY}; ${ROUNDS} rounds after a warm-up; node ${process.version}, ${load.cpus} CPUs`);
  log(`load average before: ${load.before.join(', ')} (other work on the machine skews every timing; the rounds' median ratios less so)`);
  const snapshot = await generatedSnapshot();
  const duck = await startDuck();
  log(
    `duckdb (its own process, 2 threads): loaded ${duck.counts.payments.toLocaleString('en')} payments, ${duck.counts.items.toLocaleString('en')} items, ` +
      `${duck.segmentValues.toLocaleString('en')} customer attribute values, ${duck.counts.rates.toLocaleString('en')} ECB rates in ${seconds(duck.loadMs)}`,
  );

  const requests = reportRequests(months);
  // A fresh copy of the filter for every run: what the engine keeps with a filter object (filters.ts) lasts one report, as a request's would.
  const filtered = (name: FilterName) => withFilter(requests, structuredClone(BENCH_FILTERS[name].engine));
  const reports: Partial<Record<FilterName, SectionResult[]>> = {};
  const duckResults: Partial<Record<FilterName, DuckMrrResult>> = {};
  // Our side's CPU time too (user + system of this process): waiting for a CPU on a loaded machine is in the wall time only.
  const cpu: Record<'report' | 'report_segment' | 'report_product', number[]> = { report: [], report_segment: [], report_product: [] };
  const timed = (round: number, run: () => unknown, cpuOf?: keyof typeof cpu) => {
    const cpuStart = process.cpuUsage();
    const start = performance.now();
    run();
    const ms = performance.now() - start;
    const used = process.cpuUsage(cpuStart);
    if (cpuOf && round >= 1) cpu[cpuOf].push((used.user + used.system) / 1000);
    return ms;
  };
  const report = (round: number, cpuOf?: keyof typeof cpu) => timed(round, () => computeSections(snapshot, requests), cpuOf);
  const filteredReport = (name: FilterName, cpuOf?: keyof typeof cpu) => (round: number) => {
    const filteredRequests = filtered(name);
    return timed(round, () => (reports[name] = computeSections(snapshot, filteredRequests)), cpuOf);
  };
  const duckRun = (filter: FilterName) => async (round: number) => {
    const ran = await duck.run(filter, round === 0);
    if (ran.result) duckResults[filter] = ran.result;
    return ran.ms;
  };
  for (const name of FILTER_NAMES) log(`filter '${name}': ${BENCH_FILTERS[name].label}`);

  // Two sets of rounds. Our run right after a DuckDB run (seconds of this process idle) was measured 1.5-2x slower than
  // the same run right after another of ours, so the filtered / unfiltered ratio is taken from rounds of ours alone.
  log(`engine rounds: the ${requests.length}-section report unfiltered, filtered on the segment, on the product; the order reversed every round`);
  const engineRounds = await alternateRounds<EngineContender>({
    contenders: [
      { name: 'report', run: (round) => report(round, 'report') },
      { name: 'report_segment', run: filteredReport('segment', 'report_segment') },
      { name: 'report_product', run: filteredReport('product', 'report_product') },
    ],
    ratios: { segment_unfiltered_ratio: ['report_segment', 'report'], product_unfiltered_ratio: ['report_product', 'report'] },
    rounds: ROUNDS,
    load,
    log,
    digits: 0,
  });
  log(`peer rounds: the filtered reports and duckdb's series under the same filters; the order reversed every round`);
  const peerRounds = await alternateRounds<PeerContender>({
    contenders: [
      { name: 'report_segment', run: filteredReport('segment') },
      { name: 'duckdb_segment', run: duckRun('segment') },
      { name: 'report_product', run: filteredReport('product') },
      { name: 'duckdb_product', run: duckRun('product') },
    ],
    ratios: { segment_duckdb_ratio: ['report_segment', 'duckdb_segment'], product_duckdb_ratio: ['report_product', 'duckdb_product'] },
    rounds: ROUNDS,
    load,
    log,
    digits: 0,
  });
  const duckRssMb = await duck.close();
  const rssMb = peakRssMb();
  log(`peak RSS of this process: ${rssMb} MB; the duckdb process peaked at ${duckRssMb} MB`);

  // Parity (untimed): the engine's series under each filter against DuckDB's, and the timed report's MRR against that series.
  const request = engineRequest(months);
  const unfilteredCustomers = lastCompleteCustomers(computeMrrSeries(snapshot, request));
  let equal = true;
  const shares = {} as Record<FilterName, number>;
  for (const name of FILTER_NAMES) {
    const ours = computeMrrSeries(snapshot, { ...request, filter: BENCH_FILTERS[name].engine });
    const theirs = duckResults[name];
    const filteredResult = reports[name];
    if (!theirs || !filteredResult) throw new Error(`no result of DuckDB or of the report for the '${name}' filter`);
    const differences = [...compareMrr(ours, theirs), ...compareReportMrr(filteredResult, ours)];
    equal &&= differences.length === 0;
    shares[name] = unfilteredCustomers === 0 ? 0 : lastCompleteCustomers(ours) / unfilteredCustomers;
    log(
      differences.length === 0
        ? `'${name}' equal: every month, series, total and product agree with DuckDB's to the minor unit, and the report's MRR with the series (the filter keeps ${(100 * shares[name]).toFixed(1)}% of the customers of the last complete month)`
        : `'${name}' NOT EQUAL:\n  ${differences.join('\n  ')}`,
    );
  }

  const ratios = { ...engineRounds.ratios, ...peerRounds.ratios };
  const ratio = (name: string) => ratios[name] as Spread;
  const targets: [string, boolean][] = [
    ['segment-filtered report <= 0.5 x duckdb (peer rounds: median of report_segment / duckdb_segment)', ratio('segment_duckdb_ratio').median <= 0.5],
    ['product-filtered report <= 0.5 x duckdb (peer rounds: median of report_product / duckdb_product)', ratio('product_duckdb_ratio').median <= 0.5],
    ['segment-filtered report <= 1.5 x unfiltered (engine rounds: median of report_segment / report)', ratio('segment_unfiltered_ratio').median <= 1.5],
    ['product-filtered report <= 1.5 x unfiltered (engine rounds: median of report_product / report)', ratio('product_unfiltered_ratio').median <= 1.5],
  ];
  const machine = load.finish();
  // Not a target: the same filtered / unfiltered ratios in CPU time, which a loaded machine distorts less.
  const cpuRatio = (name: 'report_segment' | 'report_product') => spread(cpu[name].map((value, k) => value / Math.max(Number.EPSILON, cpu.report[k] as number)));
  const cpuRatios = { segment_unfiltered_cpu_ratio: cpuRatio('report_segment'), product_unfiltered_cpu_ratio: cpuRatio('report_product') };
  log('');
  log(`| figure (median over ${ROUNDS} rounds) | value | spread |`);
  log('|---|---|---|');
  for (const name of ['report', 'report_segment', 'report_product'] as const) log(`| engine rounds: ${name}_ms | ${engineRounds.figures[name].median.toFixed(0)} | ${describeSpread(engineRounds.figures[name], 0)} |`);
  for (const name of ['report', 'report_segment', 'report_product'] as const) log(`| engine rounds: ${name}_cpu_ms | ${spread(cpu[name]).median.toFixed(0)} | ${describeSpread(spread(cpu[name]), 0)} |`);
  for (const name of ['report_segment', 'report_product', 'duckdb_segment', 'duckdb_product'] as const) log(`| peer rounds: ${name}_ms | ${peerRounds.figures[name].median.toFixed(0)} | ${describeSpread(peerRounds.figures[name], 0)} |`);
  for (const name of Object.keys(ratios)) log(`| ${name} | ${ratio(name).median.toFixed(3)} | ${describeSpread(ratio(name), 3)} |`);
  for (const [name, value] of Object.entries(cpuRatios)) log(`| ${name} (information, no target) | ${value.median.toFixed(3)} | ${describeSpread(value, 3)} |`);
  log('');
  for (const [name, met] of targets) log(`${met ? 'PASS' : 'MISS'} ${name}`);
  log(load.describe());
  const targetsMet = targets.every(([, met]) => met);
  if (!equal) process.exitCode = 1;
  console.log(filterBenchLine({ scale, engineRounds, peerRounds, cpuRatios, shares, equal, targetsMet, rssMb, load: machine }));
}

if (args.role === 'duckdb') await duckdbChild();
else await main();
