import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream, openAsBlob } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { pipeline } from 'node:stream/promises';
import { parseArgs } from 'node:util';
import { sql } from 'kysely';
import pg from 'pg';
import type Stripe from 'stripe';
import { from as copyFrom, to as copyTo } from 'pg-copy-streams';
import { DEFAULT_PROVIDER_URLS } from '../server/config';
import { openDatabase, type Database } from '../server/db/database';
import { migrateToLatest } from '../server/db/migrate';
import { runSyncOnce } from '../server/integrations/runner';
import { sealSecrets } from '../server/integrations/secrets';
import type { SyncContext } from '../server/integrations/types';
import { STRIPE_PAGE, stripeClient, stripeProvider } from '../server/integrations/providers/stripe';
import { migratedPGliteDumpFile } from '../tests/server/helpers/database';
import { FAKE_STRIPE_ACCOUNT, FAKE_STRIPE_SECRET_KEY, startFakeStripe } from '../tests/fakes/stripe';
import { postgresDatabase } from './support/postgresDatabase';
import { DEFAULT_POSTGRES_ADMIN_URL } from './support/snapshotRead';
import { alternateRounds, describeSpread, LoadRecorder, median, methodFields, roundedSpread, roundTo } from './support/rounds';

/**
 * `npm run bench:sync [-- --subscriptions 100000] [--rounds 3] [--warmup-rounds 1]`
 *
 * A first Stripe sync at scale (docs/stripe.md "Speed"): the fake Stripe (in a child process,
 * on its own CPU like the real API) serves N customers, each with a subscription (a fifth
 * yearly in EUR, a quarter with a 10% forever coupon) and its paid invoices (1.8 N), computed
 * on demand. Ours: the real runner (server/integrations/runner.ts) runs the Stripe provider's
 * initial sync for a fresh account on PostgreSQL (`--engine pglite`: PGlite in this process,
 * whose database work and memory then count as ours), every commit written with its cursor in
 * one transaction. The peer: a client that pages through the same endpoints with the same
 * parameters and discards the answers, the least any sync must do. Alternating rounds after a
 * warm-up (bench/support/rounds.ts); the ratio ours/peer (median of the rounds', target <= 1.5)
 * and this process's peak RSS (target < 500 MB) are judged. On PostgreSQL a third contender, the
 * floor, is the peer's reading while the rows ours wrote are COPYed in again at the same time:
 * what no sync can beat on this machine. A fourth, sdk, reads the same lists through the official
 * SDK the provider reads with (lanes side by side, as the provider reads) and discards them: what the
 * SDK itself costs over the peer's bare fetches. floor/peer says how far the target is from reachable,
 * ours/floor how far ours is from the floor. Each round's rows are checked (exit 1 when a
 * customer or payment is missing). The last line is one JSON object.
 */

const { values: args } = parseArgs({
  options: {
    subscriptions: { type: 'string', default: '100000' },
    rounds: { type: 'string', default: '3' },
    'warmup-rounds': { type: 'string', default: '1' },
    engine: { type: 'string', default: 'postgresql' },
    'postgres-url': { type: 'string', default: DEFAULT_POSTGRES_ADMIN_URL },
    'serve-fake': { type: 'boolean', default: false },
  },
});

const RATIO_TARGET = 1.5;
const RSS_TARGET_MB = 500;


function startFakeChild(subscriptions: number): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, ['--import', 'tsx', new URL(import.meta.url).pathname, '--serve-fake', '--subscriptions', String(subscriptions)], { stdio: ['pipe', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`the fake Stripe exited (${code})`)));
    createInterface({ input: child.stdout as NodeJS.ReadableStream }).once('line', (url) => resolve({ url: url.trim(), child }));
  });
}

/** What the peer reads: every list the provider reads, page by page, with the same parameters. */
async function peerOnce(base: string): Promise<number> {
  const headers = { authorization: `Bearer ${FAKE_STRIPE_SECRET_KEY}`, 'stripe-account': FAKE_STRIPE_ACCOUNT };
  const lists: [string, string][] = [
    ['prices', ''],
    ['products', ''],
    ['coupons', ''],
    ['customers', '&include[0]=total_count'],
    ['subscriptions', '&status=all&expand[0]=data.discounts&expand[1]=data.latest_invoice&include[0]=total_count'],
    ['invoices', '&expand[0]=data.discounts&include[0]=total_count'],
  ];
  const started = performance.now();
  for (const [path, extra] of lists) {
    let after: string | null = null;
    for (;;) {
      const response = await fetch(`${base}/v1/${path}?limit=${STRIPE_PAGE}${after ? `&starting_after=${after}` : ''}${extra}`, { headers });
      const page = (await response.json()) as { data: { id: string }[]; has_more: boolean };
      if (!response.ok) throw new Error(`peer: ${path} answered ${response.status}`);
      if (!page.has_more || page.data.length === 0) break;
      after = (page.data.at(-1) as { id: string }).id;
    }
  }
  return performance.now() - started;
}

/**
 * What the official SDK alone costs: the same lists read through `stripe` (the client the provider
 * makes, its lanes side by side as the provider reads them), the answers discarded. The provider
 * reads through the SDK, so no sync of ours reads faster than this.
 */
async function sdkReadOnce(base: string): Promise<void> {
  const stripe = stripeClient({ apiUrl: base, apiKey: FAKE_STRIPE_SECRET_KEY, stripeAccount: FAKE_STRIPE_ACCOUNT });
  const pageThrough = async (page: (after: string | undefined) => Promise<{ data: { id: string }[]; has_more: boolean }>) => {
    let after: string | undefined;
    for (;;) {
      const limit = Error.stackTraceLimit;
      Error.stackTraceLimit = 0;
      let answer: Promise<{ data: { id: string }[]; has_more: boolean }>;
      try {
        answer = page(after);
      } finally {
        Error.stackTraceLimit = limit;
      }
      const { data, has_more } = await answer;
      if (!has_more || data.length === 0) return;
      after = (data.at(-1) as { id: string }).id;
    }
  };
  const at = (after: string | undefined) => ({ limit: STRIPE_PAGE, ...(after ? { starting_after: after } : {}) });
  await pageThrough((after) => stripe.prices.list(at(after)));
  await pageThrough((after) => stripe.products.list(at(after)));
  await pageThrough((after) => stripe.coupons.list(at(after)));
  await Promise.all([
    pageThrough((after) => stripe.customers.list({ ...at(after), include: ['total_count'] } as Stripe.CustomerListParams)),
    pageThrough((after) => stripe.subscriptions.list({ ...at(after), status: 'all', expand: ['data.discounts', 'data.latest_invoice'], include: ['total_count'] } as Stripe.SubscriptionListParams)),
    pageThrough((after) => stripe.invoices.list({ ...at(after), expand: ['data.discounts'], include: ['total_count'] } as Stripe.InvoiceListParams)),
  ]);
}

async function sdkOnce(base: string): Promise<number> {
  const started = performance.now();
  await sdkReadOnce(base);
  return performance.now() - started;
}

const commitShares: number[] = [];

/** The tables a first Stripe sync fills, in the order their rows may be written. */
const WRITTEN_TABLES = ['customers', 'products', 'payments', 'payment_items', 'payment_discounts'] as const;
/**
 * The rows ours wrote in its first round: COPY text files of each table, written and read as
 * streams so the floor adds nothing to this process's peak RSS (which is ours, judged).
 */
let writtenRows: { accountId: string; dir: string; tables: { table: string; columns: string[]; file: string }[] } | null = null;

async function captureRows(url: string, accountId: string): Promise<void> {
  const dir = await mkdtemp(path.join(tmpdir(), 'subscope-bench-sync-'));
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const tables: { table: string; columns: string[]; file: string }[] = [];
    for (const table of WRITTEN_TABLES) {
      const { rows } = await client.query<{ name: string }>(`select attname as name from pg_attribute where attrelid = $1::regclass and attnum > 0 and not attisdropped order by attnum`, [table]);
      const columns = rows.map((row) => row.name);
      const file = path.join(dir, `${table}.copy`);
      await pipeline(client.query(copyTo(`copy (select ${columns.join(', ')} from ${table} where account_id = '${accountId}') to stdout`)), createWriteStream(file));
      tables.push({ table, columns, file });
    }
    writtenRows = { accountId, dir, tables };
  } finally {
    await client.end();
  }
}

/**
 * The floor: the peer's reading and, at the same time, the rows ours wrote written again (for
 * the same account id, free again once ours' round deleted its account) by COPY in one
 * transaction, triggers off as ours has them: the cheapest way PostgreSQL takes rows. No sync
 * can be faster on this machine: it has to read those pages and store those rows, and here the
 * writing neither waits for a page nor maps anything.
 */
async function floorOnce(url: string, base: string): Promise<number> {
  if (!writtenRows) throw new Error('the floor runs after a round of ours');
  const rows = writtenRows;
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('insert into accounts (id) values ($1)', [rows.accountId]);
    const write = async () => {
      await client.query('begin');
      await client.query('set local session_replication_role = replica');
      for (const { table, columns, file } of rows.tables) {
        await pipeline(createReadStream(file), client.query(copyFrom(`copy ${table} (${columns.join(', ')}) from stdin`)));
      }
      await client.query('commit');
    };
    const started = performance.now();
    await Promise.all([peerOnce(base), write()]);
    const elapsed = performance.now() - started;
    // Table by table with the triggers off: the cascade from accounts would check each row's
    // references one by one, against tables just filled that have no statistics yet.
    await client.query('begin');
    await client.query('set local session_replication_role = replica');
    for (const { table } of [...rows.tables].reverse()) await client.query(`delete from ${table} where account_id = $1`, [rows.accountId]);
    await client.query('delete from accounts where id = $1', [rows.accountId]);
    await client.query('commit');
    return elapsed;
  } finally {
    await client.end();
  }
}

/**
 * Removes an account ours synced: the big tables first, table by table with the triggers off (the
 * cascade from accounts would check each of their rows' references one by one, against tables
 * just filled that have no statistics yet: minutes at 100k), then the account with its cascade.
 */
async function dropAccount(database: Database, accountId: string): Promise<void> {
  await database.kysely.transaction().execute(async (trx) => {
    await sql`set local session_replication_role = replica`.execute(trx);
    for (const table of [...WRITTEN_TABLES].reverse()) await sql`delete from ${sql.table(table)} where account_id = ${accountId}`.execute(trx);
    await sql`set local session_replication_role = origin`.execute(trx);
    await trx.deleteFrom('accounts').where('id', '=', accountId).execute();
  });
}

async function oursOnce(database: Database, databaseUrl: string | null, key: Buffer, base: string, round: number, expected: { customers: number; payments: number }): Promise<number> {
  const db = database.kysely;
  const accountId = `bench-sync-${round}-${randomBytes(4).toString('hex')}`;
  await db.insertInto('accounts').values({ id: accountId }).execute();
  await db
    .insertInto('integrations')
    .values({
      account_id: accountId,
      name: 'stripe',
      configured: true,
      config: JSON.stringify({ stripe_account_id: FAKE_STRIPE_ACCOUNT }),
      secret_config: JSON.stringify(sealSecrets(key, { access_token: FAKE_STRIPE_SECRET_KEY, stripe_user_id: FAKE_STRIPE_ACCOUNT })),
    })
    .execute();
  const quiet = { info: () => {}, warn: (line: string) => console.error(line), error: (line: string) => console.error(line) };
  // The provider as registered, its commits timed: how much of the run is writing.
  let committing = 0;
  const timed = {
    ...stripeProvider,
    sync: (context: SyncContext) =>
      stripeProvider.sync({
        ...context,
        commit: async (batch, next) => {
          const from = performance.now();
          await context.commit(batch, next);
          committing += performance.now() - from;
        },
      }),
  };
  const started = performance.now();
  const outcome = await runSyncOnce({ database, secretsKey: key, urls: { ...DEFAULT_PROVIDER_URLS, stripeApi: base }, log: quiet, fetch: { baseDelayMs: 50 }, providers: { stripe: timed } }, accountId, 'stripe');
  const elapsed = performance.now() - started;
  commitShares.push(committing / elapsed);
  const count = async (table: 'customers' | 'payments') => Number((await db.selectFrom(table).select((eb) => eb.fn.countAll().as('n')).where('account_id', '=', accountId).executeTakeFirstOrThrow()).n);
  const customers = await count('customers');
  const payments = await count('payments');
  if (outcome !== 'done' || customers !== expected.customers || payments !== expected.payments) {
    const row = await db.selectFrom('integrations').select(['last_error', 'sync_status']).where('account_id', '=', accountId).executeTakeFirst();
    throw new Error(`round ${round}: ${outcome}, ${customers}/${expected.customers} customers, ${payments}/${expected.payments} payments (${row?.sync_status}: ${row?.last_error ?? ''})`);
  }
  if (!writtenRows && databaseUrl) await captureRows(databaseUrl, accountId);
  // The next round starts from an empty account again; the database does not grow round by round.
  await dropAccount(database, accountId);
  return elapsed;
}

async function main(): Promise<void> {
  const subscriptions = Number(args.subscriptions);
  const rounds = Number(args.rounds);
  const warmupRounds = Number(args['warmup-rounds']);
  if (!Number.isInteger(subscriptions) || subscriptions < 1) throw new Error('--subscriptions must be a whole number >= 1');
  const log = (line: string) => process.stdout.write(`${line}\n`);
  const expected = { customers: subscriptions, payments: subscriptions * 2 - Math.ceil(subscriptions / 5) };

  const load = new LoadRecorder();
  log(load.describe());
  const { url, child } = await startFakeChild(subscriptions);
  const engine = args.engine === 'pglite' ? 'pglite' : 'postgresql';
  if (args.engine !== engine) throw new Error('--engine must be postgresql or pglite');
  const postgres = engine === 'postgresql' ? await postgresDatabase(args['postgres-url'], 'bench_sync') : null;
  // PGlite starts from the tests' dump of a migrated cluster (made once per change of the migrations).
  const database = await openDatabase(postgres ? { kind: 'postgresql', url: postgres.url } : { kind: 'pglite', loadDataDir: await openAsBlob(await migratedPGliteDumpFile()) });
  await migrateToLatest(database.kysely);
  const key = randomBytes(32);
  log(`fake Stripe at ${url}: ${subscriptions} customers and subscriptions, ${expected.payments} paid invoices; ${engine === 'pglite' ? 'PGlite in memory (in this process)' : `PostgreSQL ${postgres?.name}`}`);

  try {
    const result = await alternateRounds({
      contenders: [
        { name: 'ours', run: (round) => oursOnce(database, postgres?.url ?? null, key, url, round, expected) },
        { name: 'peer', run: () => peerOnce(url) },
        { name: 'sdk', run: () => sdkOnce(url) },
        ...(postgres ? [{ name: 'floor' as const, run: () => floorOnce(postgres.url, url) }] : []),
      ],
      ratios: { ratio: ['ours', 'peer'], sdk_ratio: ['sdk', 'peer'] as ['sdk', 'peer'], ...(postgres ? { floor_ratio: ['floor', 'peer'] as ['floor', 'peer'], ours_to_floor: ['ours', 'floor'] as ['ours', 'floor'] } : {}) },
      rounds,
      warmupRounds,
      load,
      log,
      digits: 0,
    });
    const rssMb = Math.round(process.resourceUsage().maxRSS / 1024);
    const ratio = result.ratios.ratio as NonNullable<(typeof result.ratios)['ratio']>;
    const ours = result.figures.ours;
    log(`ours ${describeSpread(ours, 0, ' ms')}; peer ${describeSpread(result.figures.peer, 0, ' ms')}; ratio ${describeSpread(ratio, 3)} (target <= ${RATIO_TARGET}); peak RSS ${rssMb} MB (target < ${RSS_TARGET_MB}); writing (the runner's commits) ${Math.round(median(commitShares) * 100)}% of ours`);
    const sdkRatio = result.ratios.sdk_ratio as NonNullable<(typeof result.ratios)['sdk_ratio']>;
    log(`sdk (the official SDK reading the same lists, lanes side by side, answers discarded) ${describeSpread(result.figures.sdk as NonNullable<typeof result.figures.sdk>, 0, ' ms')}; sdk/peer ${describeSpread(sdkRatio, 3)}`);
    const floorRatio = result.ratios.floor_ratio;
    const oursToFloor = result.ratios.ours_to_floor;
    const floor = result.figures.floor;
    if (floor && floorRatio && oursToFloor) {
      log(`floor (the peer's reading while the same rows are COPYed in) ${describeSpread(floor, 0, ' ms')}; floor/peer ${describeSpread(floorRatio, 3)}; ours/floor ${describeSpread(oursToFloor, 3)}`);
    }
    log(load.describe());
    log(
      JSON.stringify({
        bench: 'sync',
        subscriptions,
        ratio: roundTo(ratio.median, 3),
        rss_mb: rssMb,
        ours_ms: Math.round(ours.median),
        peer_ms: Math.round(result.figures.peer.median),
        payments: expected.payments,
        commit_share: roundTo(median(commitShares), 3),
        customers: expected.customers,
        ratio_target: RATIO_TARGET,
        rss_target_mb: RSS_TARGET_MB,
        ratio_spread: roundedSpread(ratio, 3),
        ours_spread: roundedSpread(ours, 0),
        peer_spread: roundedSpread(result.figures.peer, 0),
        engine,
        sdk_ms: Math.round((result.figures.sdk as NonNullable<typeof result.figures.sdk>).median),
        sdk_ratio: roundTo(sdkRatio.median, 3),
        floor_ms: floor ? Math.round(floor.median) : null,
        floor_ratio: floorRatio ? roundTo(floorRatio.median, 3) : null,
        ours_to_floor: oursToFloor ? roundTo(oursToFloor.median, 3) : null,
        floor_spread: floor ? roundedSpread(floor, 0) : null,
        ...methodFields(result, load.finish()),
      }),
    );
  } finally {
    child.stdin?.end();
    if (writtenRows) await rm(writtenRows.dir, { recursive: true, force: true });
    await database.close();
    await postgres?.drop();
  }
}

// The fake's process: start it, print its URL, serve until stdin closes.
if (args['serve-fake']) {
  const fake = await startFakeStripe();
  fake.generate(Number(args.subscriptions));
  process.stdout.write(`${fake.url}\n`);
  process.stdin.resume();
  process.stdin.on('end', () => void fake.close().then(() => process.exit(0)));
} else {
  await main();
}
