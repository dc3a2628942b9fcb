import { arrayLiteral, copyText } from '../db/copyText';
import { csvRows } from './csv/rows';
import { PaymentIdSet } from './paymentIdSet';
import { readSubscriptionRow, type FieldMapping, type ParsedPaymentRow, type RowContext } from './subscriptionRows';

/**
 * The reading half of a subscription import: the stored file's bytes in, batches of ready COPY
 * text out. Decodes, parses and validates each row, catches the rows that name a payment an
 * earlier row named, and says which customers and products are new to the import. Pure (no
 * database): it runs in a worker thread beside the job (subscriptionParseWorker.ts), so the
 * reading overlaps the database's writing even on PGlite, whose engine shares the main thread.
 */

export interface BatchPlan {
  accountId: string;
  importId: string;
  mapping: FieldMapping;
  /** As RowContext, with the currencies' digits as entries (a Map does not cross to a worker as one). */
  context: Omit<RowContext, 'currencyDigits'> & { currencyDigits: [string, number][] };
  skipHeaders: boolean;
  /** The mapping names a product, revenue type or units: each payment gets an item. */
  withItem: boolean;
  /** The account had no payments when the import began: every payment of the file is new. */
  noPayments: boolean;
  /** Valid rows per batch. */
  batchRows: number;
  /** Rows of the file (counted at the upload), to size the set of payment ids once. */
  expectedRows: number;
}

export interface ParsedBatch {
  /** Rows read so far, header included (for progress). */
  seen: number;
  /** Valid rows in this batch. */
  valid: number;
  /** Customers first named in this batch (ids, and the name each one's first row gives). */
  customerIds: string[];
  customerNames: string[];
  /** Products first named in this batch. */
  products: string[];
  /** When every payment is new: the batch's payments and items as COPY text, UTF-8 (handed over without a copy). */
  payments?: Uint8Array;
  items?: Uint8Array;
  /** Otherwise each row apart: its payment id, and its lines for payments, payment_items or import_stage. */
  ids?: string[];
  paymentLines?: string[];
  itemLines?: string[];
  stageLines?: string[];
  /** Failed rows as COPY text for import_rows, UTF-8, and how many. */
  failures: Uint8Array;
  failureCount: number;
}

export interface ParseTotals {
  seen: number;
  valid: number;
  failed: number;
}

const utf8 = new TextEncoder();

/** The buffers of a batch, for a worker to hand over by transfer. */
export function batchBuffers(batch: ParsedBatch): ArrayBuffer[] {
  return [batch.payments, batch.items, batch.failures].filter((bytes): bytes is Uint8Array => bytes !== undefined).map((bytes) => bytes.buffer as ArrayBuffer);
}

/** Keys remembered as written (customers, products); past this many, later rows name them again and ON CONFLICT skips them. */
const KNOWN_LIMIT = 500_000;

/** Batches of the file's rows, in file order; returns the totals. */
export async function* subscriptionBatches(bytes: AsyncIterable<Uint8Array>, plan: BatchPlan): AsyncGenerator<ParsedBatch, ParseTotals> {
  const context: RowContext = { ...plan.context, currencyDigits: new Map(plan.context.currencyDigits) };
  const { mapping, withItem, batchRows } = plan;
  const account = copyText(plan.accountId);
  const importRef = copyText(plan.importId);
  const ids = PaymentIdSet.forRows(plan.expectedRows);
  const knownCustomers = new Set<string>();
  const knownProducts = new Set<string>();
  let rows: ParsedPaymentRow[] = [];
  let failures = '';
  let failureCount = 0;
  const totals: ParseTotals = { seen: 0, valid: 0, failed: 0 };

  const batch = (): ParsedBatch => {
    const out: ParsedBatch = { seen: totals.seen, valid: rows.length, customerIds: [], customerNames: [], products: [], failures: utf8.encode(failures), failureCount };
    // In file order: a customer's name is the one its first row gives.
    const newCustomers = new Map<string, string>();
    const newProducts = new Set<string>();
    for (const row of rows) {
      if (!knownCustomers.has(row.customerId) && !newCustomers.has(row.customerId)) newCustomers.set(row.customerId, row.customerName ?? row.customerId);
      if (withItem && !knownProducts.has(row.productKey)) newProducts.add(row.productKey);
    }
    for (const [id, name] of newCustomers) {
      out.customerIds.push(id);
      out.customerNames.push(name);
      if (knownCustomers.size < KNOWN_LIMIT) knownCustomers.add(id);
    }
    for (const key of newProducts) {
      out.products.push(key);
      if (knownProducts.size < KNOWN_LIMIT) knownProducts.add(key);
    }
    if (plan.noPayments) {
      let payments = '';
      let items = '';
      for (const row of rows) {
        payments += paymentLine(account, importRef, row);
        if (withItem) items += itemLine(account, row);
      }
      out.payments = utf8.encode(payments);
      if (withItem) out.items = utf8.encode(items);
    } else {
      out.ids = rows.map((row) => row.paymentId);
      out.paymentLines = rows.map((row) => paymentLine(account, importRef, row));
      if (withItem) out.itemLines = rows.map((row) => itemLine(account, row));
      out.stageLines = rows.map((row) => stageLine(row, withItem));
    }
    rows = [];
    failures = '';
    failureCount = 0;
    return out;
  };
  const fail = (number: number, cells: readonly string[], message: string) => {
    failures += `${account}\t${importRef}\t${number}\t${copyText(arrayLiteral(cells))}\t${copyText(message)}\n`;
    failureCount++;
    totals.failed++;
  };

  let first = true;
  for await (const row of csvRows(bytes)) {
    totals.seen++;
    if (first) {
      first = false;
      if (plan.skipHeaders) continue;
    }
    const outcome = readSubscriptionRow(row.cells, mapping, context);
    if (!outcome.ok) {
      fail(row.number, row.cells, outcome.message);
    } else {
      // Rows of one file that name the same payment: the first one counts, the others are reported.
      const firstRow = ids.add(outcome.row.paymentId, row.number);
      if (firstRow === null) {
        rows.push(outcome.row);
        totals.valid++;
      } else {
        fail(row.number, row.cells, `Same customer, invoice number and start date as row ${firstRow}`);
      }
    }
    if (rows.length >= batchRows || failureCount >= batchRows) yield batch();
  }
  if (rows.length > 0 || failureCount > 0) yield batch();
  return totals;
}

export const PAYMENT_COLUMNS = ['account_id', 'id', 'customer_id', 'version', 'started_at', 'ended_at', 'duration_in_months', 'total_value', 'currency', 'invoice_number', 'source', 'import_id'];
export const ITEM_COLUMNS = ['account_id', 'payment_id', 'position', 'product_key', 'type', 'quantity'];
export const STAGE_COLUMNS = [
  'payment_id',
  'customer_id',
  'customer_name',
  'started_at',
  'ended_at',
  'duration_in_months',
  'total_value',
  'currency',
  'invoice_number',
  'product_key',
  'item_type',
  'quantity',
];
export const FAILURE_COLUMNS = ['account_id', 'import_id', 'row_number', 'cells', 'error'];

function paymentLine(account: string, importRef: string, row: ParsedPaymentRow): string {
  return `${account}\t${copyText(row.paymentId)}\t${copyText(row.customerId)}\t1\t${row.startedAt}\t${row.endedAt}\t${row.months}\t${row.totalValue}\t${row.currency}\t${copyText(row.invoiceNumber)}\tcsv_import\t${importRef}\n`;
}

function itemLine(account: string, row: ParsedPaymentRow): string {
  return `${account}\t${copyText(row.paymentId)}\t0\t${copyText(row.productKey)}\t${row.itemType}\t${row.quantity}\n`;
}

/** A row whose payment exists as a line of COPY text for import_stage (no item: the mapping names no product, type or units). */
function stageLine(row: ParsedPaymentRow, withItem: boolean): string {
  return (
    `${copyText(row.paymentId)}\t${copyText(row.customerId)}\t${copyText(row.customerName)}\t${row.startedAt}\t${row.endedAt}\t${row.months}\t${row.totalValue}\t${row.currency}\t` +
    `${copyText(row.invoiceNumber)}\t${withItem ? `${copyText(row.productKey)}\t${row.itemType}\t${row.quantity}` : '\\N\t\\N\t\\N'}\n`
  );
}
