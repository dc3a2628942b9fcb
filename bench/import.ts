import { createWriteStream, mkdtempSync, openAsBlob, readFileSync, rmSync, statSync } from 'node:fs';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import { spawn, type ChildProcess } from 'node:child_process';
import { npmStartCommand } from '../e2e/support/server';
import { postgresDatabase } from './support/postgresDatabase';
import { LoadRecorder, alternateRounds, describeSpread, methodFields, roundTo, roundedSpread, type RoundsResult } from './support/rounds';
import { DEFAULT_POSTGRES_ADMIN_URL } from './support/snapshotRead';

/**
 * `npm run bench:import [-- --rows 1000000] [--rounds 6] [--engines postgresql,pglite] [--postgres-url URL] [--skip-copy]`
 *
 * A generated CSV of payments (the import dialog's four columns) imported end to end: uploaded
 * over HTTP to the product's server, started as `npm start` starts it in a process of its own
 * (streamed from disk), staged, validated and committed by the job, until GET says done.
 * rss_mb is that server process's peak resident memory (VmHWM, its reading worker included) in
 * the PostgreSQL run; pglite_rss_mb the same in the PGlite run. The peer, in the same run on the
 * same PostgreSQL server: a plain `COPY` of the same
 * rows, already in the table's own columns, into `payments` of another account. The two
 * alternate in `--rounds` rounds after a warm-up round (bench/support/rounds.ts), ours into a
 * new account each time, payments and customers truncated (untimed) after each import so every
 * one starts from empty tables; ratio is the median of the rounds' ratios, with its spread.
 * Progress lines first; the last line is one JSON object:
 * {"bench":"import","rows":…,"ours_ms":…,"copy_ms":…,"ratio":…,"rss_mb":…,"pglite_ms":…,"pglite_rss_mb":…,"ratio_spread":{…},"rounds":…,"load":{…},…}
 * Targets (issue 5): ratio <= 1.5 (median), rss_mb < 400 whatever the file size, PGlite under 15 s.
 */

const { values: args } = parseArgs({
  options: {
    rows: { type: 'string', default: '1000000' },
    rounds: { type: 'string', default: '6' },
    'warmup-rounds': { type: 'string', default: '1' },
    engines: { type: 'string', default: 'postgresql' },
    'postgres-url': { type: 'string', default: DEFAULT_POSTGRES_ADMIN_URL },
    // Our import only (memory experiments): no peer, so no ratio.
    'skip-copy': { type: 'boolean', default: false },
  },
});
const ROWS = Number(args.rows);
const CUSTOMERS = Math.max(1, Math.floor(ROWS / 12));
const ROUNDS = Number(args.rounds);
const WARMUP_ROUNDS = Number(args['warmup-rounds']);
if (!Number.isInteger(ROUNDS) || ROUNDS < 1 || !Number.isInteger(WARMUP_ROUNDS) || WARMUP_ROUNDS < 0) throw new Error('--rounds must be a whole number >= 1, --warmup-rounds >= 0');
const log = (line: string) => process.stdout.write(`${line}\n`);
const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
const benchRssMb = () => Math.round(process.resourceUsage().maxRSS / 1024);

/** Row k: customer k mod C, a month-long period in the k div C-th month from 2019-01, an amount with cents. */
function row(k: number): { customer: string; start: string; end: string; cents: number } {
  const month = Math.floor(k / CUSTOMERS);
  const startMonth = (month % 12) + 1;
  const startYear = 2019 + Math.floor(month / 12);
  const endMonth = (startMonth % 12) + 1;
  const endYear = startMonth === 12 ? startYear + 1 : startYear;
  const pad = (n: number) => String(n).padStart(2, '0');
  return { customer: `cus-${k % CUSTOMERS}`, start: `${startYear}-${pad(startMonth)}-01`, end: `${endYear}-${pad(endMonth)}-01`, cents: 1_000 + ((k * 37) % 90_000) };
}

async function writeLines(file: string, line: (k: number) => string): Promise<number> {
  const out = createWriteStream(file);
  for (let k = 0; k < ROWS; k++) {
    if (!out.write(line(k))) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
  return statSync(file).size;
}

/**
 * The product's own server (`server/main.ts`, as `npm start` runs it: job queue, workers) in a
 * process of its own, so its memory is measured apart from this bench's generated files.
 */
async function startServer(storage: { DATABASE_URL: string } | { DATA_DIR: string }): Promise<{ base: string; child: ChildProcess; peakRssMb: () => number; stop: () => Promise<void> }> {
  const start = npmStartCommand();
  const child = spawn(process.execPath, start.args, {
    cwd: path.resolve(import.meta.dirname, '..'),
    env: { ...process.env, ...start.env, ...storage, PORT: '0', HOST: '127.0.0.1', SEED_DEMO: 'false', SKIP_SPA_BUILD: 'true', ECB_FEED_URL: 'off', LOG_LEVEL: 'warn', JWT_SECRET: randomBytes(32).toString('hex') },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const base = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (data: Buffer) => {
      out += data.toString();
      const found = /running at (http:\/\/localhost:\d+)/.exec(out);
      if (found) resolve((found[1] as string).replace('localhost', '127.0.0.1'));
    });
    child.once('exit', (code) => reject(new Error(`the server exited (${code}): ${out}`)));
  });
  child.stdout?.resume();
  // VmHWM: the most resident memory the process has had.
  const peakRssMb = () => Math.round(Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))?.[1] ?? 0) / 1024);
  const stop = async () => {
    child.removeAllListeners('exit');
    const exited = once(child, 'exit');
    child.kill('SIGTERM');
    await exited;
  };
  return { base, child, peakRssMb, stop };
}

/** Uploads the file to the server at `base` and waits for the import to be done; the elapsed ms. */
async function importEndToEnd(base: string, file: string, round = 0): Promise<number> {
  // A new user, so a new, empty account, each round.
  const signUp = await fetch(`${base}/api/v11/users`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ user: { email: `bench-${round}@example.com`, password: 'quiet-orbit-lantern-42', name: 'Bench' } }),
  });
  const authorization = signUp.headers.get('authorization');
  if (!authorization) throw new Error(`sign-up answered ${signUp.status} and no token: ${(await signUp.text()).slice(0, 300)}`);
  const started = performance.now();
  const form = new FormData();
  form.append('column_order', 'customer_id,started_at,ended_at,monthly_amount');
  form.append('paying_customers', await openAsBlob(file), 'payments.csv');
  const response = await fetch(`${base}/api/v11/subscriptions/csv_import`, { method: 'POST', headers: { authorization }, body: form });
  const uploaded = (await response.json()) as { id?: string; errors?: unknown };
  if (!uploaded.id) throw new Error(`upload refused: ${JSON.stringify(uploaded).slice(0, 500)}`);
  log(`  uploaded and staged in ${seconds(performance.now() - started)}`);
  for (;;) {
    const view = (await (await fetch(`${base}/api/v11/subscriptions/csv_import/${uploaded.id}`, { headers: { authorization } })).json()) as {
      status: string;
      progress: number;
      result: { success_count: number; failure_count: number; error?: string };
    };
    if (view.status === 'done') {
      if (view.result.success_count !== ROWS) throw new Error(`imported ${view.result.success_count} of ${ROWS} rows`);
      const audit = (view as unknown as { audit_log: { event: string; created_at: string; details: { ms?: Record<string, number> } }[] }).audit_log;
      const t0 = Date.parse(audit[0]?.created_at ?? '');
      log(`  steps (audit log, s from the upload): ${audit.map((e) => `${e.event} ${((Date.parse(e.created_at) - t0) / 1000).toFixed(2)}`).join(', ')}`);
      const ms = audit.find((e) => e.event === 'committed')?.details.ms ?? {};
      log(`  the job's steps (ms): ${Object.entries(ms).map(([step, took]) => `${step} ${took}`).join(', ')}`);
      break;
    }
    if (view.status === 'failed') throw new Error(`the import failed: ${view.result.error}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return performance.now() - started;
}

/** Empties payments and customers (and what hangs off them) between rounds, untimed, so each import starts from empty tables. */
async function emptyTables(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('truncate payments, customers cascade');
  } finally {
    await client.end();
  }
}

/** The peer: the same rows, in payments' own columns, COPYed into payments of another account (customers inserted first, untimed). */
async function plainCopy(url: string, file: string): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`insert into accounts (id) values ('acccopybench') on conflict do nothing`);
    await client.query(`insert into customers (account_id, id, name) select 'acccopybench', 'cus-' || k, 'cus-' || k from generate_series(0, ${CUSTOMERS - 1}) k`);
    const started = performance.now();
    await client.query('begin');
    const copy = client.query(copyFrom(`copy payments (account_id, id, customer_id, started_at, ended_at, duration_in_months, total_value, monthly_amount, currency) from stdin with (format csv)`));
    await pipeline(Readable.from((await openAsBlob(file)).stream() as unknown as AsyncIterable<Uint8Array>), copy);
    await client.query('commit');
    return performance.now() - started;
  } finally {
    await client.end();
  }
}

async function main(): Promise<void> {
  const load = new LoadRecorder();
  log(
    `import bench: ${ROWS.toLocaleString('en')} rows, ${CUSTOMERS.toLocaleString('en')} customers; ${ROUNDS} rounds after ${WARMUP_ROUNDS} warm-up; ` +
      `node ${process.version}, ${load.cpus} CPUs, load ${load.before.join(', ')}`,
  );
  const dir = mkdtempSync(path.join(tmpdir(), 'subscope-bench-import-'));
  try {
    const csv = path.join(dir, 'payments.csv');
    const bytes = await writeLines(csv, (k) => {
      const r = row(k);
      return `${r.customer},${r.start},${r.end},${Math.floor(r.cents / 100)}.${String(r.cents % 100).padStart(2, '0')}\n`;
    });
    const copyFile = path.join(dir, 'payments-copy.csv');
    await writeLines(copyFile, (k) => {
      const r = row(k);
      return `acccopybench,pay${k},${r.customer},${r.start},${r.end},1,${r.cents},${r.cents},USD\n`;
    });
    log(`wrote ${(bytes / 1e6).toFixed(1)} MB of CSV`);
    const engines = args.engines.split(',').filter(Boolean);
    let oursMs: number | null = null;
    let copyMs: number | null = null;
    let pgliteMs: number | null = null;
    let rssMb: number | null = null;
    let pgliteRssMb: number | null = null;
    let rounds: RoundsResult<'ours' | 'copy'> | null = null;
    if (engines.includes('postgresql')) {
      const target = await postgresDatabase(args['postgres-url'], 'subscope_bench_import');
      try {
        const server = await startServer({ DATABASE_URL: target.url });
        try {
          if (args['skip-copy']) {
            oursMs = await importEndToEnd(server.base, csv);
            log(`postgresql: our import end to end ${seconds(oursMs)}`);
          } else {
            log(`postgresql: ${ROUNDS} rounds of our import and a plain COPY of the same rows into payments, the order reversed every round (payments and customers emptied after each, untimed)`);
            rounds = await alternateRounds({
              contenders: [
                {
                  name: 'ours',
                  run: async (round) => {
                    const ms = await importEndToEnd(server.base, csv, round);
                    await emptyTables(target.url);
                    return ms;
                  },
                },
                {
                  name: 'copy',
                  run: async () => {
                    const ms = await plainCopy(target.url, copyFile);
                    await emptyTables(target.url);
                    return ms;
                  },
                },
              ],
              ratios: { ratio: ['ours', 'copy'] },
              rounds: ROUNDS,
              warmupRounds: WARMUP_ROUNDS,
              load,
              log,
              digits: 0,
            });
            oursMs = rounds.figures.ours.median;
            copyMs = rounds.figures.copy.median;
          }
          rssMb = server.peakRssMb();
          log(`postgresql: our import end to end ${seconds(oursMs)}${copyMs === null ? '' : `, plain COPY ${seconds(copyMs)} (medians)`}; the server's peak RSS ${rssMb} MB`);
        } finally {
          await server.stop();
        }
      } finally {
        await target.drop();
      }
    }
    if (engines.includes('pglite')) {
      const server = await startServer({ DATA_DIR: path.join(dir, 'data') });
      try {
        pgliteMs = await importEndToEnd(server.base, csv);
        pgliteRssMb = server.peakRssMb();
        log(`pglite: our import end to end ${seconds(pgliteMs)} (target < 15 s at 1,000,000 rows); the server's peak RSS ${server.peakRssMb()} MB`);
      } finally {
        await server.stop();
      }
    }
    log(
      `peak RSS of the server process (the app, the upload, the job and its reader), target < 400 MB: ${rssMb ?? '-'} MB on PostgreSQL, ` +
        `${pgliteRssMb ?? '-'} MB on PGlite (its WASM engine alone holds some 650 MB); of this bench ${benchRssMb()} MB`,
    );
    const round = (v: number | null) => (v === null ? null : Math.round(v));
    const machine = load.finish();
    const ratio = rounds?.ratios.ratio ?? null;
    if (ratio) log(`ratio (ours / COPY): median ${describeSpread(ratio, 2)}; target <= 1.5 (median): ${ratio.median <= 1.5 ? 'met' : 'MISSED'}`);
    log(load.describe());
    console.log(
      JSON.stringify({
        bench: 'import',
        rows: ROWS,
        ours_ms: round(oursMs),
        copy_ms: round(copyMs),
        ratio: ratio ? roundTo(ratio.median, 2) : null,
        rss_mb: rssMb,
        pglite_ms: round(pgliteMs),
        pglite_rss_mb: pgliteRssMb,
        ratio_spread: ratio ? roundedSpread(ratio, 2) : null,
        ours_spread: rounds ? roundedSpread(rounds.figures.ours, 0) : null,
        copy_spread: rounds ? roundedSpread(rounds.figures.copy, 0) : null,
        ...(rounds ? methodFields(rounds, machine) : { rounds: 0, warmup_rounds: 0, orders: [], load: machine }),
      }),
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
