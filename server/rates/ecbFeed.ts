import { sql } from 'kysely';
import type { Database } from '../db/database';
import type { RateRow } from './ecbHistory';

/** The ECB's daily reference rates for the last 90 days, in its eurofxref XML format. */
export const ECB_FEED_DEFAULT_URL = 'https://www.ecb.europa.eu/stats/eurofxref/eurofxref-hist-90d.xml';

/**
 * Parses the ECB eurofxref XML: `<Cube time="YYYY-MM-DD"><Cube currency="USD" rate="1.1252"/>…</Cube>`.
 * The format is flat and fixed, so a strict scan is enough; anything else is rejected.
 */
export function parseEcbXml(xml: string): RateRow[] {
  if (!xml.includes('eurofxref') && !xml.includes('<Cube')) throw new Error('Not an ECB eurofxref document');
  const rows: RateRow[] = [];
  const dayBlock = /<Cube\s+time=["'](\d{4}-\d{2}-\d{2})["']\s*>([\s\S]*?)<\/Cube>\s*(?=<Cube\s+time|<\/Cube>)/g;
  const rate = /<Cube\s+currency=["']([A-Z]{3})["']\s+rate=["']([0-9]+(?:\.[0-9]+)?)["']\s*\/>/g;
  for (const [, day, body] of xml.matchAll(dayBlock)) {
    if (!day || !body) continue;
    for (const [, currency, value] of body.matchAll(rate)) {
      if (currency && value) rows.push({ day, currency, ratePerEur: value });
    }
  }
  if (rows.length === 0) throw new Error('The ECB document holds no rates');
  return rows;
}

/** Fetches the feed and upserts its rates; returns how many (day, currency) rows were new or changed. */
export async function refreshRatesFromEcb(db: Database, url: string, fetchImpl: typeof fetch = fetch): Promise<number> {
  const response = await fetchImpl(url, { signal: AbortSignal.timeout(30_000) });
  if (!response.ok) throw new Error(`ECB feed answered ${response.status}`);
  const rows = parseEcbXml(await response.text());
  const result = await sql<{ changed: number }>`
    with incoming as (
      select * from unnest(${rows.map((r) => r.day)}::date[], ${rows.map((r) => r.currency)}::text[], ${rows.map((r) => r.ratePerEur)}::numeric[])
        as t(day, currency, rate_per_eur)
    ), upserted as (
      insert into exchange_rates (day, currency, rate_per_eur)
      select day, currency, rate_per_eur from incoming
      on conflict (day, currency) do update set rate_per_eur = excluded.rate_per_eur
        where exchange_rates.rate_per_eur is distinct from excluded.rate_per_eur
      returning 1
    )
    select count(*)::int as changed from upserted`.execute(db.kysely);
  return result.rows[0]?.changed ?? 0;
}
