import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseEcbXml, refreshRatesFromEcb } from '../../server/rates/ecbFeed';
import { loadEcbHistoryIfEmpty, readEcbHistory } from '../../server/rates/ecbHistory';
import { createTestDatabase, type TestDatabase } from './helpers/database';

// The ECB's eurofxref format, as its daily feed serves it.
const feed = (days: Array<[string, Array<[string, string]>]>) => `<?xml version="1.0" encoding="UTF-8"?>
<gesmes:Envelope xmlns:gesmes="http://www.gesmes.org/xml/2002-08-01" xmlns="http://www.ecb.int/vocabulary/2002-08-01/eurofxref">
\t<gesmes:subject>Reference rates</gesmes:subject>
\t<gesmes:Sender><gesmes:name>European Central Bank</gesmes:name></gesmes:Sender>
\t<Cube>
${days.map(([day, rates]) => `\t\t<Cube time="${day}">\n${rates.map(([c, r]) => `\t\t\t<Cube currency="${c}" rate="${r}"/>`).join('\n')}\n\t\t</Cube>`).join('\n')}
\t</Cube>
</gesmes:Envelope>`;

describe('the shipped ECB history', () => {
  it('reads (day, currency, rate) rows and skips N/A cells', async () => {
    const rows = [];
    for await (const row of readEcbHistory()) {
      rows.push(row);
      if (rows.length > 200) break;
    }
    expect(rows[0]).toEqual({ day: '2025-05-09', currency: 'USD', ratePerEur: '1.1252' });
    expect(rows.some((r) => r.currency === 'CYP')).toBe(false);
  });

  describe('loading', () => {
    let db: TestDatabase;
    beforeAll(async () => {
      db = await createTestDatabase();
    });
    afterAll(() => db.close());

    it('fills an empty table once and then leaves it alone', async () => {
      const added = await loadEcbHistoryIfEmpty(db);
      expect(added).toBeGreaterThan(150_000);
      const { rows } = await sql<{ n: number; first: string; last: string }>`
        select count(*)::int as n, min(day)::text as first, max(day)::text as last from exchange_rates`.execute(db.kysely);
      expect(rows[0]).toEqual({ n: added, first: '1999-01-04', last: '2025-05-09' });
      const pln = await sql<{ rate: string }>`select rate_per_eur::text as rate from exchange_rates where day = '2025-05-08' and currency = 'PLN'`.execute(db.kysely);
      expect(Number(pln.rows[0]?.rate)).toBe(4.27);
      expect(await loadEcbHistoryIfEmpty(db)).toBe(0);
    });

    it('loads the history once when two boots race on an empty database', async () => {
      const fresh = await createTestDatabase();
      try {
        const added = await Promise.all([loadEcbHistoryIfEmpty(fresh), loadEcbHistoryIfEmpty(fresh)]);
        expect(Math.min(...added)).toBe(0);
        expect(Math.max(...added)).toBeGreaterThan(150_000);
        const { rows } = await sql<{ n: number }>`select count(*)::int as n from exchange_rates`.execute(fresh.kysely);
        expect(rows[0]?.n).toBe(Math.max(...added));
      } finally {
        await fresh.close();
      }
    });

    describe('daily refresh from the ECB feed', () => {
      let server: Server;
      let body = '';
      let url = '';
      beforeAll(async () => {
        server = createServer((_req, res) => {
          res.writeHead(body ? 200 : 503, { 'content-type': 'text/xml' });
          res.end(body);
        });
        await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
        url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/eurofxref-hist-90d.xml`;
      });
      afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

      it('adds new days and reports only what changed', async () => {
        body = feed([
          ['2025-05-13', [['USD', '1.1200'], ['PLN', '4.2500']]],
          ['2025-05-12', [['USD', '1.1100'], ['PLN', '4.2600']]],
          ['2025-05-09', [['USD', '1.1252']]],
        ]);
        expect(await refreshRatesFromEcb(db, url)).toBe(4);
        expect(await refreshRatesFromEcb(db, url)).toBe(0);
        const { rows } = await sql<{ rate: string }>`select rate_per_eur::text as rate from exchange_rates where day = '2025-05-13' and currency = 'PLN'`.execute(db.kysely);
        expect(Number(rows[0]?.rate)).toBe(4.25);
      });

      it('fails loudly and changes nothing when the feed is down or malformed', async () => {
        body = '';
        await expect(refreshRatesFromEcb(db, url)).rejects.toThrow('ECB feed answered 503');
        body = '<html>maintenance</html>';
        await expect(refreshRatesFromEcb(db, url)).rejects.toThrow();
      });
    });
  });
});

describe('parseEcbXml', () => {
  it('parses every currency of every day', () => {
    const rows = parseEcbXml(feed([['2025-05-13', [['USD', '1.12'], ['JPY', '163.36']]]]));
    expect(rows).toEqual([
      { day: '2025-05-13', currency: 'USD', ratePerEur: '1.12' },
      { day: '2025-05-13', currency: 'JPY', ratePerEur: '163.36' },
    ]);
  });
});
