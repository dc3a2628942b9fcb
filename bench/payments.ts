import { benchApp } from './support/benchApp';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { sql } from 'kysely';
import { DEFAULT_REPORT_DEFINITIONS } from '../server/metrics/definitions/catalogue';
import { openDatabase, type Database } from '../server/db/database';
import { createMetricsService } from '../server/metrics/service';
import { encodePaymentCursor, type PaymentSort } from '../server/payments/read';
import { oursOnce, p50 } from './support/customerListBench';
import { SCALES, TODAY, type Scale } from './support/metricsBench';
import { alternateRounds, describeSpread, LoadRecorder, methodFields, roundedSpread, roundTo } from './support/rounds';
import { seedTarget } from './support/snapshotRead';

/**
 * `npm run bench:payments [-- --scale S|M] [--rounds 4] [--requests 50] [--edit-rounds 4]`
 *
 * The payments table and a payment edit at scale (docs/payments.md "Speed"), on PGlite: the
 * generated business of `bench:metrics` (M: 100,000 customers, about 1.18 M payments) written
 * with COPY into a fresh database, the real app over it, a signed-in full user.
 *
 * - Listing: in alternating rounds (bench/support/rounds.ts), each case's p50 over `--requests`
 *   calls of ours (`GET /subscription_histories`, `GET /subscriptions/histories/search` through
 *   the app: auth, the keyset page, the answer rows) against the p50 of a plain indexed SELECT
 *   of the same rows (the payment, its customer's name and its item in one query) served by the
 *   same server: the first and a deep page (half-way) by start date and by total value, and the
 *   search by an invoice number prefix. Target ratio <= 1.5. The ids must be equal (exit 1 otherwise).
 * - Edit: one payment edit until the report (the default sections over the whole history)
 *   shows the new numbers through GET /business_reports/by_secret, against a full
 *   recalculation of the same report (POST refresh until by_secret says done), alternating.
 *   Target <= 0.25. Also printed: the write alone, and the snapshot reload alone.
 * Progress lines first; the last line is one JSON object.
 */

const { values: args } = parseArgs({
  options: {
    scale: { type: 'string', default: 'M' },
    rounds: { type: 'string', default: '4' },
    requests: { type: 'string', default: '50' },
    'edit-rounds': { type: 'string', default: '4' },
  },
});

if (!(args.scale in SCALES)) throw new Error(`--scale must be one of ${Object.keys(SCALES).join(', ')}`);
const scale = args.scale as Scale;
const { customers, months } = SCALES[scale];
const ROUNDS = Number(args.rounds);
const REQUESTS = Number(args.requests);
const EDIT_ROUNDS = Number(args['edit-rounds']);
const LIST_TARGET = 1.5;
const EDIT_TARGET = 0.25;
const PAGE = 50;
const SEARCH = 20;
const NOW = new Date(`${TODAY}T12:00:00.000Z`);
const log = (line: string) => console.log(line);

interface Case {
  name: string;
  url: string;
  peer: () => Promise<string[]>;
}

async function main(): Promise<number> {
  const load = new LoadRecorder();
  const started = performance.now();
  const dir = mkdtempSync(path.join(tmpdir(), 'subscope-bench-payments-'));
  const target = path.join(dir, 'pgdata');
  let db: Database | null = null;
  try {
    const seeded = await seedTarget({ engine: 'pglite', target, seeder: 'copy', customers, months, now: NOW.toISOString() }, log);
    log(`seeded ${customers.toLocaleString('en')} customers, ${seeded.payments.toLocaleString('en')} payments in ${(seeded.seedMs / 1000).toFixed(1)} s`);
    db = await openDatabase({ kind: 'pglite', dataDir: target });
    await sql.raw('vacuum analyze').execute(db.kysely);
    const accountId = seeded.accountId;
    const kysely = db.kysely;

    const bench = await benchApp(db, NOW);
    const { app } = bench;
    try {
      const authorization = await bench.signIn(accountId, 'bench.payments@example.com');
      const count = await kysely.selectFrom('payments').select((eb) => eb.fn.countAll<number>().as('n')).where('account_id', '=', accountId).where('deleted_at', 'is', null).executeTakeFirstOrThrow();
      const deep = Math.floor(Number(count.n) / 2);

      // The plain SELECT: the page's payments with their customer's name and first item, one indexed query.
      const rowsOf = (where: ReturnType<typeof sql>, order: ReturnType<typeof sql>, limit: number) => async () =>
        (
          await sql<{ id: string }>`select p.id, p.customer_id, c.name as customer_name, p.invoice_number, p.started_at, p.ended_at, p.duration_in_months,
                   p.total_value, p.monthly_amount, p.currency, p.version, p.source, i.product_key, i.type, i.quantity
              from payments p
              join customers c on c.account_id = p.account_id and c.id = p.customer_id
              left join payment_items i on i.account_id = p.account_id and i.payment_id = p.id and i.position = 0
             where p.account_id = ${accountId} and p.deleted_at is null and ${where}
             order by ${order} limit ${limit}`.execute(kysely)
        ).rows.map((row) => row.id);

      const cases: Case[] = [];
      for (const field of ['started_at', 'total_value'] as const) {
        const sort: PaymentSort = { field, direction: 'desc' };
        const column = sql.ref(`p.${field}`);
        cases.push({ name: `${field}_first`, url: `/subscription_histories?sort_by=${field}:desc&limit=${PAGE}`, peer: rowsOf(sql`${column} is not null`, sql`${column} desc, p.id desc`, PAGE) });
        const at = await sql<{ id: string; key: string | number }>`select id, ${sql.ref(field)} as key from payments where account_id = ${accountId} and deleted_at is null and ${sql.ref(field)} is not null
                order by ${sql.ref(field)} desc, id desc offset ${deep} limit 1`.execute(kysely);
        const row = at.rows[0];
        if (!row) throw new Error('no deep row');
        const key = field === 'started_at' ? String(row.key).slice(0, 10) : Number(row.key);
        const cursor = encodePaymentCursor(sort, key, row.id);
        const cast = field === 'started_at' ? sql`${key}::date` : sql`${key}::bigint`;
        cases.push({
          name: `${field}_deep`,
          url: `/subscription_histories?sort_by=${field}:desc&limit=${PAGE}&next=${encodeURIComponent(cursor)}`,
          peer: rowsOf(sql`${column} is not null and (${column}, p.id) < (${cast}, ${row.id})`, sql`${column} desc, p.id desc`, PAGE),
        });
      }
      const invoice = await kysely.selectFrom('payments').select('invoice_number').where('account_id', '=', accountId).orderBy('id').offset(deep).limit(1).executeTakeFirstOrThrow();
      // An invoice number less its last two digits: a prefix a few dozen numbers share.
      const prefix = String(invoice.invoice_number).slice(0, -2);
      cases.push({
        name: 'invoice_search',
        url: `/subscriptions/histories/search?query=${encodeURIComponent(prefix)}&limit=${SEARCH}`,
        // The matches found by the invoice index first (a planner left to itself may walk the start-date index instead).
        peer: rowsOf(
          sql`p.id in (select m.id from payments m where m.account_id = ${accountId} and m.deleted_at is null and lower(m.invoice_number) like ${`${prefix.toLowerCase()}%`} offset 0)`,
          sql`p.started_at desc, p.id`,
          SEARCH,
        ),
      });
      bench.setPeerCases(cases);
      const peerOnce = bench.peerOnce;

      let equal = true;
      for (const c of cases) {
        const [ours, peer] = [await oursOnce(app, authorization, c.url), await c.peer()];
        const same = ours.length === peer.length && ours.every((id, k) => id === peer[k]);
        log(`${c.name}: ${same ? 'equal' : 'NOT EQUAL'} (${ours.length} rows)`);
        if (!same || ours.length === 0) equal = false;
      }

      const contenders = cases.flatMap((c) => [
        { name: `${c.name}_ours`, run: () => p50(REQUESTS, () => oursOnce(app, authorization, c.url)) },
        { name: `${c.name}_peer`, run: () => p50(REQUESTS, () => peerOnce(c.name)) },
      ]);
      const ratios = Object.fromEntries(cases.map((c) => [c.name, [`${c.name}_ours`, `${c.name}_peer`] as const]));
      const listing = await alternateRounds({ contenders, ratios, rounds: ROUNDS, load, log, digits: 2 });
      const figures: Record<string, unknown> = {};
      let met = true;
      for (const c of cases) {
        const ratio = listing.ratios[c.name];
        if (!ratio) continue;
        const pass = ratio.median <= LIST_TARGET;
        met &&= pass;
        log(`${pass ? 'PASS' : 'MISS'} ${c.name} <= ${LIST_TARGET} x the plain indexed SELECT served by the same server: ${describeSpread(ratio, 3)}`);
        figures[c.name] = {
          ours_ms: roundTo(listing.figures[`${c.name}_ours`]?.median ?? NaN, 2),
          peer_ms: roundTo(listing.figures[`${c.name}_peer`]?.median ?? NaN, 2),
          ratio: roundTo(ratio.median, 3),
          ratio_spread: roundedSpread(ratio, 3),
        };
      }

      // The edit against a full recalculation of a report of the default sections over the history.
      const created = await app.inject({
        method: 'POST',
        url: '/api/v11/business_reports',
        headers: { authorization },
        payload: { title: 'Bench payments', sections: DEFAULT_REPORT_DEFINITIONS.map((definition_id) => ({ definition_id })) },
      });
      if (created.statusCode !== 201) throw new Error(`report: ${created.statusCode} ${created.body}`);
      const report = created.json() as { id: string; secret: string };
      await app.reports.settled();
      const mrrNow = async (): Promise<number | null> => {
        const response = await app.inject({ method: 'GET', url: `/api/v11/business_reports/by_secret?secret=${report.secret}`, headers: { authorization } });
        if (response.statusCode !== 200) throw new Error(`by_secret: ${response.statusCode}`);
        const sections = (response.json() as { sections: { definition_id: string; segments: { is_total: boolean; series: { data_points: { value: number | null }[] }[] }[] }[] }).sections;
        return sections.find((s) => s.definition_id === 'mrr')?.segments.find((s) => s.is_total)?.series[0]?.data_points.at(-1)?.value ?? null;
      };
      // A payment in force today, so the edit moves this month's MRR.
      const edited = await sql<{ id: string; total_value: number; duration_in_months: number }>`
        select p.id, p.total_value, p.duration_in_months from payments p join payment_items i on i.account_id = p.account_id and i.payment_id = p.id and i.type = 'recurring'
         where p.account_id = ${accountId} and p.deleted_at is null and p.started_at <= ${TODAY}::date and p.ended_at > ${TODAY}::date and p.currency = 'USD'
         order by p.id limit 1`.execute(kysely);
      const payment = edited.rows[0];
      if (!payment) throw new Error('no payment in force today');
      let total = Number(payment.total_value);
      let editsShown = true;
      let writeMs: number[] = [];
      const editOnce = async () => {
        const before = await mrrNowUntimed();
        total += Math.round(100 * Number(payment.duration_in_months));
        const start = performance.now();
        const response = await app.inject({ method: 'PUT', url: `/api/v11/subscriptions/history/${payment.id}`, headers: { authorization }, payload: { total_value: total } });
        if (response.statusCode !== 200) throw new Error(`edit: ${response.statusCode} ${response.body}`);
        writeMs.push(performance.now() - start);
        await app.reports.settled();
        const after = await mrrNow();
        const ms = performance.now() - start;
        if (after === before) editsShown = false;
        return ms;
      };
      let lastMrr: number | null = await mrrNow();
      async function mrrNowUntimed(): Promise<number | null> {
        const value = lastMrr;
        lastMrr = null;
        return value ?? mrrNow();
      }
      const refreshOnce = async () => {
        const start = performance.now();
        const response = await app.inject({ method: 'POST', url: `/api/v11/business_reports/${report.id}/refresh`, headers: { authorization } });
        if (response.statusCode !== 202) throw new Error(`refresh: ${response.statusCode}`);
        await app.reports.settled();
        await mrrNow();
        return performance.now() - start;
      };
      // The snapshot reload an edit causes, alone: the same load on a metrics service of its own (the app's is not reachable from here).
      const reloader = createMetricsService(db);
      const reloadOnce = async () => {
        reloader.dropLocal(accountId);
        const start = performance.now();
        await reloader.getSnapshot(accountId);
        return performance.now() - start;
      };
      writeMs = [];
      const editRounds = await alternateRounds({
        contenders: [
          { name: 'edit', run: editOnce },
          { name: 'full_recalculation', run: refreshOnce },
          { name: 'snapshot_reload', run: reloadOnce },
        ],
        ratios: { edit: ['edit', 'full_recalculation'] as const, reload_share: ['snapshot_reload', 'edit'] as const },
        rounds: EDIT_ROUNDS,
        load,
        log,
        digits: 0,
      });
      const editRatio = editRounds.ratios.edit;
      const editMet = editRatio !== undefined && editRatio.median <= EDIT_TARGET;
      const sortedWrites = [...writeMs].sort((a, b) => a - b);
      const writeP50 = sortedWrites[Math.floor(sortedWrites.length / 2)] ?? NaN;
      log(
        `${editMet ? 'PASS' : 'MISS'} edit until by_secret shows it <= ${EDIT_TARGET} x a full recalculation: ${editRatio ? describeSpread(editRatio, 3) : 'n/a'}; edit ${roundTo(editRounds.figures.edit?.median ?? NaN, 0)} ms (the PUT alone ${roundTo(writeP50, 0)} ms), full recalculation ${roundTo(editRounds.figures.full_recalculation?.median ?? NaN, 0)} ms, snapshot reload alone ${roundTo(editRounds.figures.snapshot_reload?.median ?? NaN, 0)} ms; the report showed every edit: ${editsShown}`,
      );
      const machine = load.finish();
      log(load.describe());
      console.log(
        JSON.stringify({
          bench: 'payments',
          scale,
          engine: 'pglite',
          payments: Number(count.n),
          requests: REQUESTS,
          target_ratio: LIST_TARGET,
          equal,
          targets_met: met,
          cases: figures,
          edit: {
            edit_ms: roundTo(editRounds.figures.edit?.median ?? NaN, 0),
            put_ms: roundTo(writeP50, 0),
            full_recalculation_ms: roundTo(editRounds.figures.full_recalculation?.median ?? NaN, 0),
            snapshot_reload_ms: roundTo(editRounds.figures.snapshot_reload?.median ?? NaN, 0),
            ratio: editRatio ? roundTo(editRatio.median, 3) : null,
            ratio_spread: editRatio ? roundedSpread(editRatio, 3) : null,
            target_ratio: EDIT_TARGET,
            target_met: editMet,
            shown: editsShown,
            sections: DEFAULT_REPORT_DEFINITIONS.length,
          },
          total_s: roundTo((performance.now() - started) / 1000, 1),
          ...methodFields(listing, machine),
        }),
      );
      return equal && editsShown ? 0 : 1;
    } finally {
      await app.close();
    }
  } finally {
    await db?.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

process.exitCode = await main();
