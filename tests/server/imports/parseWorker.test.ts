import { describe, expect, it } from 'vitest';
import { firstRowsInWorker, parseInWorker } from '../../../server/imports/parseWorker';
import type { BatchPlan, ParsedBatch } from '../../../server/imports/subscriptionBatches';
import { paymentIdOf } from '../../../server/imports/subscriptionRows';

const plan = (overrides: Partial<BatchPlan> = {}): BatchPlan => ({
  accountId: 'acc-1',
  importId: 'imp-1',
  mapping: { customer_id: 0, started_at: 1, ended_at: 2, monthly_amount: 3 },
  context: { accountId: 'acc-1', accountCurrency: 'USD', currencyDigits: [['USD', 2]], slashOrder: null },
  skipHeaders: false,
  withItem: false,
  noPayments: true,
  batchRows: 3,
  expectedRows: 10,
  ...overrides,
});

async function* chunksOf(text: string, size: number): AsyncGenerator<Uint8Array> {
  const bytes = new TextEncoder().encode(text);
  for (let at = 0; at < bytes.length; at += size) yield bytes.slice(at, at + size);
}

async function drain<T>(batches: AsyncGenerator<ParsedBatch, T>) {
  const out: ParsedBatch[] = [];
  for (;;) {
    const next = await batches.next();
    if (next.done) return { out, totals: next.value };
    out.push(next.value);
  }
}

describe('the import reader in its worker thread', () => {
  it('hands back every row in file order, a batch at a time, with the new customers and the failures', async () => {
    const lines = Array.from({ length: 10 }, (_, k) => `cus-${k % 4},2025-0${1 + (k % 9)}-01,2025-${String(2 + (k % 9)).padStart(2, '0')}-01,${k + 1}`);
    lines.splice(5, 0, 'cus-x,not a date,2025-02-01,1');
    const { out, totals } = await drain(parseInWorker(plan(), chunksOf(`${lines.join('\n')}\n`, 7)));
    expect(totals).toEqual({ seen: 11, valid: 10, failed: 1 });
    expect(out.map((batch) => batch.valid)).toEqual([3, 3, 3, 1]);
    const text = (bytes: Uint8Array | undefined) => new TextDecoder().decode(bytes);
    // Each customer once, in the batch that first names it, named by its id (no name column).
    expect(out.map((batch) => text(batch.customers))).toEqual(['cus-0\tcus-0\ncus-1\tcus-1\ncus-2\tcus-2\n', 'cus-3\tcus-3\n', '', '']);
    expect(out.map((batch) => batch.customerCount)).toEqual([3, 1, 0, 0]);
    const amounts = out.flatMap((batch) => text(batch.payments).trim().split('\n').map((line) => Number(line.split('\t')[7])));
    expect(amounts).toEqual([100, 200, 300, 400, 500, 600, 700, 800, 900, 1000]);
    expect(out.map((batch) => batch.failureCount).reduce((a, b) => a + b)).toBe(1);
    expect(out.map((batch) => text(batch.failures)).join('')).toContain("\t6\t{\"cus-x\",\"not a date\",\"2025-02-01\",\"1\"}\tStarted at 'not a date' is not a date\n");
  });

  it('gives each row apart when payments may exist, for the job to sort new from existing', async () => {
    const { out } = await drain(parseInWorker(plan({ noPayments: false, withItem: true, mapping: { customer_id: 0, started_at: 1, ended_at: 2, monthly_amount: 3, product: 4 } }), chunksOf('c1,2025-01-01,2025-02-01,5,Pro\n', 64)));
    expect(out).toHaveLength(1);
    const [batch] = out as [ParsedBatch];
    expect(batch.ids).toHaveLength(1);
    expect(batch.paymentLines?.[0]).toMatch(/^acc-1\tsubh\w{12}\tc1\t1\t2025-01-01\t2025-02-01\t1\t500\t500\tUSD\t\\N\tcsv_import\timp-1\n$/);
    expect(batch.itemLines?.[0]).toMatch(/\t0\tPro\trecurring\t1\n$/);
    expect(batch.stageLines?.[0]).toMatch(/^subh\w{12}\tc1\t\\N\t2025-01-01\t2025-02-01\t1\t500\t500\tUSD\t\\N\tPro\trecurring\t1\t\\N\t\\N\t\\N\n$/);
    expect(new TextDecoder().decode(batch.products)).toBe('Pro\tPro\n');
    expect(batch.productCount).toBe(1);
    expect(batch.payments).toBeUndefined();
  });

  it('hands over the COPY text as UTF-8 bytes, letters beyond ASCII included', async () => {
    const { out } = await drain(parseInWorker(plan(), chunksOf('Łódź-1,2025-01-01,2025-02-01,5\n', 3)));
    expect(new TextDecoder().decode(out[0]?.payments)).toMatch(/^acc-1\tsubh\w{12}\tŁódź-1\t1\t2025-01-01\t/);
    expect(new TextDecoder().decode(out[0]?.customers)).toBe('Łódź-1\tŁódź-1\n');
  });

  it('reports a repeat within its batch with the first row, and sets apart as a suspect one whose first row was in an earlier batch', async () => {
    const lines = ['a,2025-01-01,2025-02-01,1', 'b,2025-01-01,2025-02-01,1', 'a,2025-01-01,2025-02-01,2', 'c,2025-01-01,2025-02-01,1', 'd,2025-01-01,2025-02-01,1', 'a,2025-01-01,2025-02-01,3'];
    const { out, totals } = await drain(parseInWorker(plan({ withItem: true, mapping: { customer_id: 0, started_at: 1, ended_at: 2, monthly_amount: 3, product: 0 } }), chunksOf(`${lines.join('\n')}\n`, 16)));
    // Row 3 repeats row 1 in the same batch; row 6 repeats it from the next batch: the job settles it.
    expect(totals).toEqual({ seen: 6, valid: 4, failed: 1 });
    const text = (bytes: Uint8Array | undefined) => new TextDecoder().decode(bytes);
    expect(text(out[0]?.failures)).toContain('\t3\t{"a","2025-01-01","2025-02-01","2"}\tSame customer, invoice number and start date as row 1\n');
    expect(out.map((batch) => batch.suspects.map((suspect) => suspect.number))).toEqual([[], [6]]);
    const [suspect] = out[1]?.suspects ?? [];
    expect(suspect).toMatchObject({ id: paymentIdOf('acc-1', 'a', null, '2025-01-01'), cells: ['a', '2025-01-01', '2025-02-01', '3'], productKey: 'a', itemLine: expect.stringMatching(/\ta\trecurring\t1\n$/) });
    expect(suspect?.paymentLine).toMatch(/\ta\t1\t2025-01-01\t2025-02-01\t1\t300\t300\tUSD\t/);
    // Not in the batch's own text, and its product is not listed (the job adds it if it writes the row).
    expect(text(out[1]?.payments)).not.toContain('\t300\t');
    expect(text(out[1]?.products)).toBe('d\td\n');
  });

  it('with a filter of a few bits, sets apart rows new to the file too (false alarms), each once', async () => {
    const lines = Array.from({ length: 12 }, (_, k) => `cus-${k},2025-01-01,2025-02-01,1`);
    const { out, totals } = await drain(parseInWorker(plan({ idFilterBits: 4, batchRows: 4 }), chunksOf(`${lines.join('\n')}\n`, 64)));
    const suspects = out.flatMap((batch) => batch.suspects.map((suspect) => suspect.number));
    expect(suspects.length).toBeGreaterThan(4);
    expect(totals.valid + suspects.length).toBe(12);
    // Each batch closes at 4 rows, suspects included.
    expect(out.map((batch) => batch.valid + batch.suspects.length)).toEqual([4, 4, 4]);
  });

  it('closes a batch of long rows before its row count, valid or failed', async () => {
    const name = 'n'.repeat(1000);
    const lines = Array.from({ length: 10 }, (_, k) => (k === 4 ? `cus-${k},not a date,2025-02-01,1,${name}` : `cus-${k},2025-01-01,2025-02-01,1,${name}`));
    const mapping = { customer_id: 0, started_at: 1, ended_at: 2, monthly_amount: 3, customer_name: 4 };
    const { out, totals } = await drain(parseInWorker(plan({ batchRows: 100, batchChars: 3000, mapping }), chunksOf(`${lines.join('\n')}\n`, 4096)));
    expect(totals).toEqual({ seen: 10, valid: 9, failed: 1 });
    // Some 1,030 characters a row: a batch closes at its third row.
    expect(out.map((batch) => batch.valid + batch.failureCount)).toEqual([3, 3, 3, 1]);
    expect(out.map((batch) => batch.failureCount)).toEqual([0, 1, 0, 0]);
  });

  it('finds the first valid row naming each payment asked for, skipping the header and invalid rows', async () => {
    const lines = ['Customer,Start,End,Amount', 'a,not a date,2025-02-01,1', 'b,2025-01-01,2025-02-01,1', 'a,2025-01-01,2025-02-01,1', 'a,2025-01-01,2025-02-01,2', 'c,2025-01-01,2025-02-01,1'];
    const ids = [paymentIdOf('acc-1', 'a', null, '2025-01-01'), paymentIdOf('acc-1', 'c', null, '2025-01-01'), paymentIdOf('acc-1', 'z', null, '2025-01-01')];
    const found = await firstRowsInWorker(plan({ skipHeaders: true }), ids, chunksOf(`${lines.join('\n')}\n`, 10));
    expect([...found]).toEqual([
      [ids[0], 4],
      [ids[1], 6],
    ]);
  });

  it("fails with the reader's own message when the file cannot be read", async () => {
    const batches = parseInWorker(plan(), chunksOf('c1,2025-01-01,2025-02-01,5\n"c2,2025-01-01,2025-02-01,5\n', 1024));
    await expect(drain(batches)).rejects.toThrow(/quoted field is never closed/);
  });
});
