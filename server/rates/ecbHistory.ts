import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { sql } from 'kysely';
import type { Database } from '../db/database';

export const ECB_HISTORY_FILE = new URL('./ecb-eurofxref-hist.csv', import.meta.url);

export interface RateRow {
  day: string;
  currency: string;
  ratePerEur: string;
}

/**
 * Reads the ECB's historical reference-rate CSV (one row a business day, one column a
 * currency, units per 1 EUR, 'N/A' where none was published) as (day, currency, rate) rows.
 */
export async function* readEcbHistory(file: URL | string = ECB_HISTORY_FILE): AsyncGenerator<RateRow> {
  const lines = createInterface({ input: createReadStream(file), crlfDelay: Infinity });
  let currencies: string[] | undefined;
  for await (const line of lines) {
    const cells = line.split(',');
    if (!currencies) {
      currencies = cells.slice(1).map((cell) => cell.trim());
      continue;
    }
    const day = cells[0]?.trim();
    if (!day || !/^\d{4}-\d{2}-\d{2}$/.test(day)) continue;
    for (let i = 1; i < cells.length; i++) {
      const currency = currencies[i - 1];
      const value = cells[i]?.trim();
      if (!currency || !value || value === 'N/A') continue;
      yield { day, currency, ratePerEur: value };
    }
  }
}

/**
 * Loads the shipped history into `exchange_rates` when the table is empty; returns rows added.
 * One COPY of the whole file (about 210,000 rows) in one transaction: every fresh database loads
 * it at boot, and a COPY takes about a third less time than batched inserts. Two processes
 * booting on one empty PostgreSQL database take turns under an advisory lock, and the second
 * finds the rows there.
 */
export async function loadEcbHistoryIfEmpty(db: Database, file: URL | string = ECB_HISTORY_FILE): Promise<number> {
  const existing = await db.kysely.selectFrom('exchange_rates').select('day').limit(1).executeTakeFirst();
  if (existing) return 0;
  let rows = 0;
  let text = '';
  for await (const row of readEcbHistory(file)) {
    text += `${row.day}\t${row.currency}\t${row.ratePerEur}\n`;
    rows += 1;
  }
  return db.session((session) =>
    session.kysely.transaction().execute(async (trx) => {
      await sql`select pg_advisory_xact_lock(hashtext('subscope.exchange_rates.history'))`.execute(trx);
      if (await trx.selectFrom('exchange_rates').select('day').limit(1).executeTakeFirst()) return 0;
      await session.copyIn('exchange_rates', ['day', 'currency', 'rate_per_eur'], text);
      return rows;
    }),
  );
}
