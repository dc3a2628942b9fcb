import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { DEMO_COST_ATTRIBUTE, DEMO_CUSTOMER_SEGMENTS, DEMO_PAYMENT_ATTRIBUTE, type DemoBusiness } from '../../server/demo/generate';

/**
 * The demo account's rows written with COPY, for benchmarks at a million payments, where
 * `seedDemoAccount` (multi-row INSERTs of 5,000 rows) takes minutes (2.6 min on PostgreSQL,
 * 4.6 min on PGlite for the M business). Every table and column `seedDemoAccount` writes
 * that `loadSnapshot` reads holds the same values (users and sessions are left out: nothing
 * here signs in). The benchmark checks that the snapshot read back gives the same series as
 * the one built from the generated rows, and the smoke test compares a bulk-seeded account
 * with a `seedDemoAccount` one.
 */

type Cell = string | number | boolean | null;

interface TableCopy {
  table: string;
  columns: readonly string[];
  rows: () => Iterable<readonly Cell[]>;
}

/** A CSV field: null is an unquoted empty field, every string is quoted (so '' stays ''). */
function csvField(value: Cell): string {
  if (value === null) return '';
  if (typeof value === 'string') return `"${value.replaceAll('"', '""')}"`;
  return String(value);
}

function utcMidnight(day: string): string {
  return `${day}T00:00:00.000Z`;
}

export interface BulkSeedIds {
  accountId: string;
  segmentIds: Record<string, string>;
  paymentAttributeId: string;
  costAttributeId: string;
}

export const BULK_SEED_IDS: BulkSeedIds = {
  accountId: 'accbenchmark0',
  segmentIds: Object.fromEntries(DEMO_CUSTOMER_SEGMENTS.map((segment) => [segment.key, `segbench${segment.key}`])),
  paymentAttributeId: 'attbenchchannel',
  costAttributeId: 'attbenchcategory',
};

/** The tables in foreign-key order, as seedDemoAccount fills them. */
export function demoTables(business: DemoBusiness, ids: BulkSeedIds = BULK_SEED_IDS): TableCopy[] {
  const account = ids.accountId;
  const attributeId = (key: string) => `attbench${key}`;
  return [
    { table: 'accounts', columns: ['id', 'name', 'currency', 'is_demo'], rows: () => [[account, 'Demo Company', 'USD', true]] },
    { table: 'products', columns: ['account_id', 'key', 'name'], rows: () => business.products.map((p) => [account, p.key, p.name]) },
    {
      table: 'object_attributes',
      columns: ['account_id', 'id', 'name', 'object'],
      rows: () => [
        ...DEMO_CUSTOMER_SEGMENTS.map((s) => [account, attributeId(s.key), s.name, 'customer']),
        [account, ids.paymentAttributeId, DEMO_PAYMENT_ATTRIBUTE, 'subscription_history'],
        [account, ids.costAttributeId, DEMO_COST_ATTRIBUTE, 'cost'],
      ],
    },
    {
      table: 'customer_segments',
      columns: ['account_id', 'id', 'object_attribute_id', 'name', 'value_source', 'time_sensitive'],
      rows: () => DEMO_CUSTOMER_SEGMENTS.map((s) => [account, ids.segmentIds[s.key] as string, attributeId(s.key), s.name, 'parent_and_children', s.time_sensitive]),
    },
    {
      table: 'customers',
      columns: ['account_id', 'id', 'public_id', 'name', 'parent_id', 'include_in_calculations_by_default', 'added_at', 'source'],
      rows: () => business.customers.map((c) => [account, c.id, c.public_id, c.name, c.parent_id, c.include_in_calculations_by_default, utcMidnight(c.added_at), 'demo']),
    },
    {
      table: 'customer_segment_values',
      columns: ['account_id', 'customer_id', 'segment_id', 'year', 'month', 'value'],
      rows: () => business.segmentValues.map((v) => [account, v.customer_id, ids.segmentIds[v.segment] as string, v.year, v.month, v.value]),
    },
    {
      table: 'payments',
      columns: ['account_id', 'id', 'customer_id', 'version', 'started_at', 'ended_at', 'duration_in_months', 'total_value', 'currency', 'invoice_number', 'source', 'created_at', 'updated_at'],
      rows: () =>
        business.payments.map((p) => [
          account,
          p.id,
          p.customer_id,
          p.correction ? 2 : 1,
          p.started_at,
          p.ended_at,
          p.duration_in_months,
          p.total_value,
          p.currency,
          p.invoice_number,
          'demo',
          utcMidnight(p.started_at),
          p.correction ? `${p.correction.corrected_on}T12:00:00.000Z` : utcMidnight(p.started_at),
        ]),
    },
    {
      table: 'payment_items',
      columns: ['account_id', 'payment_id', 'position', 'product_key', 'type', 'quantity'],
      rows: function* () {
        for (const p of business.payments) for (const [position, item] of p.items.entries()) yield [account, p.id, position, item.product_key, item.type, item.quantity];
      },
    },
    {
      table: 'payment_discounts',
      columns: ['account_id', 'payment_id', 'position', 'kind', 'monthly_amount'],
      rows: function* () {
        for (const p of business.payments) if (p.discount) yield [account, p.id, 0, p.discount.kind, p.discount.monthly_amount];
      },
    },
    {
      table: 'payment_segment_values',
      columns: ['account_id', 'payment_id', 'attribute_id', 'value'],
      rows: () => business.payments.map((p) => [account, p.id, ids.paymentAttributeId, p.channel]),
    },
    {
      table: 'payment_versions',
      columns: ['account_id', 'payment_id', 'version', 'customer_id', 'started_at', 'ended_at', 'duration_in_months', 'total_value', 'currency', 'invoice_number', 'items', 'discounts', 'valid_from', 'valid_to', 'recorded_at'],
      rows: function* () {
        const itemsJson = new Map<object, string>();
        for (const p of business.payments) {
          let items = itemsJson.get(p.items);
          if (items === undefined) {
            items = JSON.stringify(p.items);
            itemsJson.set(p.items, items);
          }
          const discounts = JSON.stringify(p.discount ? [{ ...p.discount }] : []);
          const version = (n: number, total: number, from: string, to: string | null): Cell[] => [
            account,
            p.id,
            n,
            p.customer_id,
            p.started_at,
            p.ended_at,
            p.duration_in_months,
            total,
            p.currency,
            p.invoice_number,
            items,
            discounts,
            from,
            to,
            from,
          ];
          // Earlier versions only: the current one is the payment row (docs/data-model.md).
          if (p.correction) yield version(1, p.correction.original_total_value, utcMidnight(p.started_at), `${p.correction.corrected_on}T12:00:00.000Z`);
        }
      },
    },
    {
      table: 'costs',
      columns: ['account_id', 'id', 'name', 'value', 'currency', 'date', 'due_date', 'invoice_number', 'source'],
      rows: () => business.costs.map((c) => [account, c.id, c.name, c.value, c.currency, c.date, c.due_date, c.invoice_number, 'demo']),
    },
    {
      table: 'cost_segment_values',
      columns: ['account_id', 'cost_id', 'attribute_id', 'value'],
      rows: () => business.costs.map((c) => [account, c.id, ids.costAttributeId, c.category]),
    },
  ];
}

const ROWS_PER_COPY = 100_000;

/** CSV text of a table, ROWS_PER_COPY rows a piece. */
function* csvPieces(copy: TableCopy): Generator<{ text: string; rows: number }> {
  let lines: string[] = [];
  for (const row of copy.rows()) {
    lines.push(row.map(csvField).join(','));
    if (lines.length === ROWS_PER_COPY) {
      yield { text: `${lines.join('\n')}\n`, rows: lines.length };
      lines = [];
    }
  }
  if (lines.length > 0) yield { text: `${lines.join('\n')}\n`, rows: lines.length };
}

function copySql(copy: TableCopy, source: string): string {
  return `copy ${copy.table} (${copy.columns.join(', ')}) from ${source} with (format csv)`;
}

export type CopyProgress = (table: string, rows: number) => void;

/** Writes the business into a migrated PostgreSQL database, in one transaction. */
export async function copyDemoIntoPostgres(url: string, business: DemoBusiness, onTable: CopyProgress = () => {}): Promise<BulkSeedIds> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('begin');
    // Rows are consistent by construction: skip the per-row foreign-key triggers.
    await client.query('set local session_replication_role = replica');
    for (const copy of demoTables(business)) {
      let rows = 0;
      const stream = client.query(copyFrom(copySql(copy, 'stdin')));
      await pipeline(
        Readable.from(
          (function* () {
            for (const piece of csvPieces(copy)) {
              rows += piece.rows;
              yield piece.text;
            }
          })(),
        ),
        stream,
      );
      onTable(copy.table, rows);
    }
    await client.query('commit');
  } catch (error) {
    await client.query('rollback').catch(() => {});
    throw error;
  } finally {
    await client.end();
  }
  return BULK_SEED_IDS;
}

/** Writes the business into a migrated PGlite data directory (no other process may have it open), in one transaction. */
export async function copyDemoIntoPGlite(dataDir: string, business: DemoBusiness, onTable: CopyProgress = () => {}): Promise<BulkSeedIds> {
  const db = await PGlite.create({ dataDir });
  try {
    await db.transaction(async (tx) => {
      await tx.query('set local session_replication_role = replica');
      for (const copy of demoTables(business)) {
        let rows = 0;
        for (const piece of csvPieces(copy)) {
          await tx.query(copySql(copy, `'/dev/blob'`), [], { blob: new Blob([piece.text]) });
          rows += piece.rows;
        }
        onTable(copy.table, rows);
      }
    });
  } finally {
    await db.close();
  }
  return BULK_SEED_IDS;
}
