import { benchApp } from './support/benchApp';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { sql } from 'kysely';
import { openDatabase, type Database } from '../server/db/database';
import { generateBusiness } from '../server/demo/generate';
import { createPeerMrrTable, listCases, listMrr, oursOnce, p50, type ListCase } from './support/customerListBench';
import { runColumnBench, type ColumnBenchResult } from './support/columnBench';
import { END_MONTH, SCALES, TODAY, type Scale } from './support/metricsBench';
import { postgresDatabase } from './support/postgresDatabase';
import { alternateRounds, describeSpread, LoadRecorder, methodFields, roundedSpread, roundTo } from './support/rounds';
import { DEFAULT_POSTGRES_ADMIN_URL, seedTarget } from './support/snapshotRead';

/**
 * `npm run bench:customers [-- --scale S|M] [--rounds 6] [--requests 50] [--engine pglite|postgresql]`
 *
 * The customers table at scale (docs/customers.md "Speed"): the generated business of
 * `bench:metrics` (M: 100,000 customers, 1.18 M payments) written with COPY into a fresh
 * database, the real app over it, a signed-in full user. In alternating rounds
 * (bench/support/rounds.ts), each case's p50 over `--requests` calls of ours (`GET /customers`
 * through the app: auth, the cached list index, the page's rows) against the p50 of a plain
 * indexed SELECT of the same page on the same engine (bench/support/customerListBench.ts):
 * the first and a deep page sorted by name, by MRR and by a calculated column, and the search
 * by name prefix; target ratio <= 1.5. Then the recalculation of a two-variable calculated
 * column for every customer against DuckDB computing the same (bench/support/columnBench.ts,
 * target <= 1). The ids of each of our pages must equal the peer's (exit 1 otherwise).
 * Progress lines first; the last line is one JSON object.
 */

const { values: args } = parseArgs({
  options: {
    scale: { type: 'string', default: 'M' },
    rounds: { type: 'string', default: '6' },
    requests: { type: 'string', default: '50' },
    engine: { type: 'string', default: 'pglite' },
    'postgres-url': { type: 'string', default: DEFAULT_POSTGRES_ADMIN_URL },
    'column-rounds': { type: 'string' },
  },
});

if (!(args.scale in SCALES)) throw new Error(`--scale must be one of ${Object.keys(SCALES).join(', ')}`);
if (args.engine !== 'pglite' && args.engine !== 'postgresql') throw new Error('--engine must be pglite or postgresql');
const scale = args.scale as Scale;
const engine = args.engine;
const { customers, months } = SCALES[scale];
const ROUNDS = Number(args.rounds);
const REQUESTS = Number(args.requests);
const TARGET = 1.5;
const log = (line: string) => console.log(line);
const NOW = new Date(`${TODAY}T12:00:00.000Z`);

async function main(): Promise<number> {
  const load = new LoadRecorder();
  const started = performance.now();
  let drop: () => Promise<void>;
  let target: string;
  if (engine === 'pglite') {
    const dir = mkdtempSync(path.join(tmpdir(), 'subscope-bench-customers-'));
    target = path.join(dir, 'pgdata');
    drop = async () => rmSync(dir, { recursive: true, force: true });
  } else {
    const database = await postgresDatabase(args['postgres-url'], 'subscope_bench_customers');
    target = database.url;
    drop = database.drop;
  }
  let db: Database | null = null;
  try {
    const seeded = await seedTarget({ engine, target, seeder: 'copy', customers, months, now: NOW.toISOString() }, (line) => log(line));
    log(`seeded ${customers.toLocaleString('en')} customers, ${seeded.payments.toLocaleString('en')} payments on ${engine} in ${(seeded.seedMs / 1000).toFixed(1)} s`);
    db = await openDatabase(engine === 'pglite' ? { kind: 'pglite', dataDir: target } : { kind: 'postgresql', url: target, poolSize: 4 });
    // What autovacuum does to a database in use (the index-only scans need the visibility map).
    await sql.raw('vacuum analyze').execute(db.kysely);
    const accountId = seeded.accountId;
    const business = generateBusiness({ customers, months, endMonth: END_MONTH, today: TODAY });

    // The calculated column (S2's bench): its recalculation against DuckDB, which also leaves its values for the sort below.
    let column: ColumnBenchResult | null = null;
    column = await runColumnBench({ db, accountId, business, today: TODAY, rounds: Number(args['column-rounds'] ?? ROUNDS), log, load });
    log(`column recalculation: ours ${column.ours_ms} ms, duckdb ${column.duckdb_ms} ms, ratio ${column.ratio} (target <= 1)`);
    const definition = await db.kysely.selectFrom('customer_column_definitions').select('id').where('account_id', '=', accountId).executeTakeFirst();

    // The HTTP peer (bench/support/benchApp.ts): the same server and request path, the plain indexed SELECT of the same page.
    const bench = await benchApp(db, NOW);
    const { app } = bench;
    try {
      const authorization = await bench.signIn(accountId, 'bench.customers@example.com');
      let start = performance.now();
      await oursOnce(app, authorization, '/customers');
      log(`first GET /customers (snapshot read, list index built): ${(performance.now() - start).toFixed(0)} ms`);
      start = performance.now();
      const mrr = await listMrr(app, authorization);
      log(`read the list's ${mrr.length.toLocaleString('en')} MRR values through its pages in ${((performance.now() - start) / 1000).toFixed(1)} s (the peer's table)`);
      await createPeerMrrTable(db, accountId, mrr);
      const names = await db.kysely.selectFrom('customers').select('name').where('account_id', '=', accountId).where('deleted_at', 'is', null).orderBy('name').limit(1).offset(Math.floor(mrr.length / 3)).executeTakeFirst();
      const cases = await listCases({ app, db, accountId, deep: Math.floor(mrr.length / 2), definitionId: definition?.id ?? null, searchPrefix: (names?.name ?? 'a').slice(0, 3) });

      bench.setPeerCases(cases);
      const peerOnce = bench.peerOnce;

      // Parity first (untimed): every case answers the peer's ids in the peer's order.
      let equal = true;
      for (const c of cases) {
        const [ours, peer] = [await oursOnce(app, authorization, c.url), await c.peer()];
        const same = ours.length === peer.length && ours.every((id, k) => id === peer[k]);
        log(`${c.name}: ${same ? 'equal' : 'NOT EQUAL'} (${ours.length} rows${same ? '' : `; ours ${ours.slice(0, 3).join(',')}… peer ${peer.slice(0, 3).join(',')}…`})`);
        if (!same || ours.length === 0) equal = false;
      }

      const contenders = cases.flatMap((c: ListCase) => [
        { name: `${c.name}_ours`, run: () => p50(REQUESTS, () => oursOnce(app, authorization, c.url)) },
        { name: `${c.name}_peer`, run: () => p50(REQUESTS, () => peerOnce(c.name)) },
        { name: `${c.name}_select`, run: () => p50(REQUESTS, () => c.peer()) },
      ]);
      const ratios = Object.fromEntries(cases.flatMap((c) => [[c.name, [`${c.name}_ours`, `${c.name}_peer`] as const], [`${c.name}_vs_bare_select`, [`${c.name}_ours`, `${c.name}_select`] as const]]));
      const result = await alternateRounds({ contenders, ratios, rounds: ROUNDS, load, log, digits: 2 });
      const machine = load.finish();
      log(load.describe());
      const figures: Record<string, unknown> = {};
      let met = true;
      for (const c of cases) {
        const ratio = result.ratios[c.name];
        if (!ratio) continue;
        const pass = ratio.median <= TARGET;
        met &&= pass;
        const bare = result.ratios[`${c.name}_vs_bare_select`];
        log(`${pass ? 'PASS' : 'MISS'} ${c.name} <= ${TARGET} x the plain SELECT served by the same server: ${describeSpread(ratio, 3)}; against the bare SELECT (no HTTP): ${bare ? describeSpread(bare, 3) : 'n/a'}`);
        figures[c.name] = {
          ours_ms: roundTo(result.figures[`${c.name}_ours`]?.median ?? NaN, 2),
          peer_ms: roundTo(result.figures[`${c.name}_peer`]?.median ?? NaN, 2),
          bare_select_ms: roundTo(result.figures[`${c.name}_select`]?.median ?? NaN, 2),
          ratio: roundTo(ratio.median, 3),
          ratio_spread: roundedSpread(ratio, 3),
          ratio_vs_bare_select: bare ? roundTo(bare.median, 3) : null,
        };
      }
      const line = {
        bench: 'customers',
        scale,
        engine,
        customers: mrr.length,
        payments: seeded.payments,
        requests: REQUESTS,
        target_ratio: TARGET,
        equal,
        targets_met: met,
        cases: figures,
        column: column && { ours_ms: column.ours_ms, duckdb_ms: column.duckdb_ms, ratio: column.ratio, ratio_spread: column.ratio_spread, equal: column.equal, customers: column.customers, with_value: column.with_value },
        total_s: roundTo((performance.now() - started) / 1000, 1),
        ...methodFields(result, machine),
      };
      console.log(JSON.stringify(line));
      // The list's parity decides the exit code; the column's own parity is in its fields (bench/support/columnBench.ts).
      return equal ? 0 : 1;
    } finally {
      await app.close();
    }
  } finally {
    await db?.close();
    await drop();
  }
}

process.exitCode = await main();
