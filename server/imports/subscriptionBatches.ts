import { arrayLiteral, copyText } from '../db/copyText';
import { csvRows } from './csv/rows';
import { KeySet } from './keySet';
import { PaymentIdFilter } from './paymentIdFilter';
import { extraCellsMessage } from './rowWidth';
import { readSubscriptionRow, type FieldMapping, type ParsedPaymentRow, type RowContext } from './subscriptionRows';

/**
 * The reading half of a subscription import: the stored file's bytes in, batches of ready COPY
 * text out. Decodes, parses and validates each row, catches the rows that name a payment an
 * earlier row of the batch named, sets apart as suspects those that may name one an earlier
 * batch named (a filter of fixed size: the job settles them against what it has written), and
 * says which customers and products are new to the import. Pure (no
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
  /** The mapping names a discount column: a row with a discount writes it (payment_discounts, position 0). */
  withDiscount?: boolean;
  /** The account had no payments when the import began: every payment of the file is new. */
  noPayments: boolean;
  /** Valid rows per batch. */
  batchRows: number;
  /** Rows of the file (counted at the upload), to size the filter of payment ids. */
  expectedRows: number;
  /** Bits of that filter when not sized from the rows (tests: a small filter makes false alarms). */
  idFilterBits?: number;
  /** Characters of cells per batch at most, when not BATCH_CHARS (tests). */
  batchChars?: number;
}

export interface ParsedBatch {
  /** Rows read so far, header included (for progress). */
  seen: number;
  /** Valid rows in this batch. */
  valid: number;
  /**
   * Customers first named in this batch, as COPY text of (id, name) in UTF-8: the name each one's
   * first row gives, else its id. Bytes, so the job never holds them as strings.
   */
  customers: Uint8Array;
  customerCount: number;
  /** Products first named in this batch, as COPY text of (key, name = key). */
  products: Uint8Array;
  productCount: number;
  /** When every payment is new: the batch's payments and items as COPY text, UTF-8 (handed over without a copy). */
  payments?: Uint8Array;
  items?: Uint8Array;
  discounts?: Uint8Array;
  /** Otherwise each row apart: its payment id, and its lines for payments, payment_items, payment_discounts or import_stage. */
  ids?: string[];
  paymentLines?: string[];
  itemLines?: string[];
  discountLines?: string[];
  stageLines?: string[];
  /**
   * The batch's open-ended rows (written like the others) as COPY text for import_open_rows
   * (payment id, row number, cells): the job checks them for overlaps once the file is read.
   */
  opens: string;
  /** Failed rows as COPY text for import_rows, UTF-8, and how many. */
  failures: Uint8Array;
  failureCount: number;
  /** Valid rows whose payment an earlier batch may have named (in file order): not in the lines above. */
  suspects: SuspectRow[];
}

/** A valid row the filter says may repeat an earlier batch's payment, with all it takes to write or report it. */
export interface SuspectRow {
  id: string;
  number: number;
  cells: string[];
  paymentLine: string;
  itemLine: string | null;
  discountLine: string;
  productKey: string | null;
  stageLine: string;
  /** Its line for import_open_rows when it is open-ended, else ''. */
  openLine: string;
}

export interface ParseTotals {
  seen: number;
  valid: number;
  failed: number;
}

const utf8 = new TextEncoder();

/** The buffers of a batch, for a worker to hand over by transfer. */
export function batchBuffers(batch: ParsedBatch): ArrayBuffer[] {
  return [batch.customers, batch.products, batch.payments, batch.items, batch.discounts, batch.failures].filter((bytes): bytes is Uint8Array => bytes !== undefined).map((bytes) => bytes.buffer as ArrayBuffer);
}

/**
 * Bytes of the keys remembered as written (customers, products: some 40 bytes each for short
 * ids, so about 800,000 of them); past this, later rows name them again and ON CONFLICT skips them.
 */
const KNOWN_BYTES = 32 * 1024 * 1024;

/**
 * Characters of cells a batch holds at most (valid rows, suspects and failures together): rows
 * may be 64 KB each, so a batch of long rows closes before its row count (the worker's heap is
 * bounded: parseWorker.ts).
 */
export const BATCH_CHARS = 4 * 1024 * 1024;

/** Batches of the file's rows, in file order; returns the totals. */
export async function* subscriptionBatches(bytes: AsyncIterable<Uint8Array>, plan: BatchPlan): AsyncGenerator<ParsedBatch, ParseTotals> {
  const context: RowContext = { ...plan.context, currencyDigits: new Map(plan.context.currencyDigits) };
  const { mapping, withItem, batchRows } = plan;
  const withDiscount = plan.withDiscount === true;
  const account = copyText(plan.accountId);
  const importRef = copyText(plan.importId);
  const seenIds = plan.idFilterBits ? new PaymentIdFilter(plan.idFilterBits) : PaymentIdFilter.forRows(plan.expectedRows);
  // The batch's payment ids and the row of each: repeats within a batch are told exactly.
  let batchIds = new Map<string, number>();
  let suspects: SuspectRow[] = [];
  const knownCustomers = new KeySet();
  const knownProducts = new KeySet();
  let rows: ParsedPaymentRow[] = [];
  // The batch's valid rows and suspects, in file order.
  let inOrder: ParsedPaymentRow[] = [];
  let failures = '';
  let failureCount = 0;
  let opens = '';
  let chars = 0;
  const totals: ParseTotals = { seen: 0, valid: 0, failed: 0 };

  const batch = (): ParsedBatch => {
    const out: ParsedBatch = {
      seen: totals.seen,
      valid: rows.length,
      // Filled below (a batch's buffers are transferred: each its own).
      customers: new Uint8Array(0),
      customerCount: 0,
      products: new Uint8Array(0),
      productCount: 0,
      failures: utf8.encode(failures),
      failureCount,
      suspects,
      opens,
    };
    // In file order: a customer's name is the one its first row gives. A suspect's customer
    // too (a repeat names its payment's customer, which an earlier batch had already); its
    // product is the job's to add if it writes the row.
    const newCustomers = new Map<string, string>();
    const newProducts = new Set<string>();
    for (const row of inOrder) {
      if (!knownCustomers.has(row.customerId) && !newCustomers.has(row.customerId)) newCustomers.set(row.customerId, row.customerName ?? row.customerId);
    }
    if (withItem) for (const row of rows) if (!knownProducts.has(row.productKey)) newProducts.add(row.productKey);
    let customers = '';
    for (const [id, name] of newCustomers) {
      customers += keyLine(id, name);
      if (knownCustomers.bytes < KNOWN_BYTES) knownCustomers.add(id);
    }
    let products = '';
    for (const key of newProducts) {
      products += keyLine(key, key);
      if (knownProducts.bytes < KNOWN_BYTES) knownProducts.add(key);
    }
    out.customers = utf8.encode(customers);
    out.customerCount = newCustomers.size;
    out.products = utf8.encode(products);
    out.productCount = newProducts.size;
    if (plan.noPayments) {
      let payments = '';
      let items = '';
      let discounts = '';
      for (const row of rows) {
        payments += paymentLine(account, importRef, row);
        if (withItem) items += itemLine(account, row);
        if (withDiscount) discounts += discountLine(account, row);
      }
      out.payments = utf8.encode(payments);
      if (withItem) out.items = utf8.encode(items);
      if (withDiscount) out.discounts = utf8.encode(discounts);
    } else {
      out.ids = rows.map((row) => row.paymentId);
      out.paymentLines = rows.map((row) => paymentLine(account, importRef, row));
      if (withItem) out.itemLines = rows.map((row) => itemLine(account, row));
      if (withDiscount) out.discountLines = rows.map((row) => discountLine(account, row));
      out.stageLines = rows.map((row) => stageLine(row, withItem, withDiscount));
    }
    rows = [];
    inOrder = [];
    suspects = [];
    batchIds = new Map();
    failures = '';
    failureCount = 0;
    opens = '';
    chars = 0;
    return out;
  };
  const fail = (number: number, cells: readonly string[], message: string) => {
    failures += failureLine(plan.accountId, plan.importId, number, cells, message);
    failureCount++;
    totals.failed++;
  };

  let first = true;
  let width = 0;
  let delimiter = ',';
  for await (const row of csvRows(bytes, { onFormat: (format) => (delimiter = format.delimiter) })) {
    totals.seen++;
    if (first) {
      first = false;
      width = row.cells.length;
      if (plan.skipHeaders) continue;
    }
    for (const cell of row.cells) chars += cell.length;
    const tooWide = extraCellsMessage(row.number, row.cells, width, plan.skipHeaders, delimiter);
    const outcome = tooWide === null ? readSubscriptionRow(row.cells, mapping, context) : ({ ok: false, message: tooWide } as const);
    if (!outcome.ok) {
      fail(row.number, row.cells, outcome.message);
    } else {
      // Rows of one file that name the same payment: the first one counts, the others are reported.
      const parsed = outcome.row;
      const firstRow = batchIds.get(parsed.paymentId);
      if (firstRow !== undefined) {
        fail(row.number, row.cells, repeatMessage(firstRow));
      } else if (seenIds.add(parsed.paymentId)) {
        // Perhaps named by an earlier batch: the job settles it (and counts it).
        inOrder.push(parsed);
        suspects.push({
          id: parsed.paymentId,
          number: row.number,
          cells: [...row.cells],
          paymentLine: paymentLine(account, importRef, parsed),
          itemLine: withItem ? itemLine(account, parsed) : null,
          discountLine: withDiscount ? discountLine(account, parsed) : '',
          productKey: withItem ? parsed.productKey : null,
          stageLine: stageLine(parsed, withItem, withDiscount),
          openLine: parsed.endedAt === null ? openLine(parsed.paymentId, row.number, row.cells) : '',
        });
      } else {
        batchIds.set(parsed.paymentId, row.number);
        if (parsed.endedAt === null) opens += openLine(parsed.paymentId, row.number, row.cells);
        rows.push(parsed);
        inOrder.push(parsed);
        totals.valid++;
      }
    }
    if (rows.length + suspects.length >= batchRows || failureCount >= batchRows || chars >= (plan.batchChars ?? BATCH_CHARS)) yield batch();
  }
  if (rows.length > 0 || suspects.length > 0 || failureCount > 0) yield batch();
  return totals;
}

/** A key (customer id or product key) and its name as a line of COPY text for the job's table of a batch's keys. */
export function keyLine(key: string, name: string): string {
  return `${copyText(key)}\t${copyText(name)}\n`;
}

/** The message of a row naming the payment an earlier row named. */
export function repeatMessage(firstRow: number): string {
  return `Same customer, invoice number and start date as row ${firstRow}`;
}

/** A failed row as a line of COPY text for import_rows. */
export function failureLine(accountId: string, importId: string, number: number, cells: readonly string[], message: string): string {
  return `${copyText(accountId)}\t${copyText(importId)}\t${number}\t${copyText(arrayLiteral(cells))}\t${copyText(message)}\n`;
}

/**
 * The first valid row of the file naming each of `ids` (the job asks for the repeats it
 * settled, to name the row they repeat): reads until it has found them all.
 */
export async function firstRowsOf(bytes: AsyncIterable<Uint8Array>, plan: BatchPlan, ids: readonly string[]): Promise<Map<string, number>> {
  const context: RowContext = { ...plan.context, currencyDigits: new Map(plan.context.currencyDigits) };
  const wanted = new Set(ids);
  const found = new Map<string, number>();
  let first = true;
  let width = 0;
  for await (const row of csvRows(bytes)) {
    if (first) {
      first = false;
      width = row.cells.length;
      if (plan.skipHeaders) continue;
    }
    // A row refused for its extra cells names no payment (the delimiter does not matter here).
    if (extraCellsMessage(row.number, row.cells, width, plan.skipHeaders, ',') !== null) continue;
    const outcome = readSubscriptionRow(row.cells, plan.mapping, context);
    if (!outcome.ok || !wanted.has(outcome.row.paymentId) || found.has(outcome.row.paymentId)) continue;
    found.set(outcome.row.paymentId, row.number);
    if (found.size === wanted.size) break;
  }
  return found;
}

export const PAYMENT_COLUMNS = [
  'account_id',
  'id',
  'customer_id',
  'version',
  'started_at',
  'ended_at',
  'duration_in_months',
  'total_value',
  'monthly_amount',
  'currency',
  'invoice_number',
  'source',
  'import_id',
];
export const ITEM_COLUMNS = ['account_id', 'payment_id', 'position', 'product_key', 'type', 'quantity'];
export const DISCOUNT_COLUMNS = ['account_id', 'payment_id', 'position', 'kind', 'monthly_amount', 'months'];
export const STAGE_COLUMNS = [
  'payment_id',
  'customer_id',
  'customer_name',
  'started_at',
  'ended_at',
  'duration_in_months',
  'total_value',
  'monthly_amount',
  'currency',
  'invoice_number',
  'product_key',
  'item_type',
  'quantity',
  'discount_kind',
  'discount_amount',
  'discount_months',
];
export const OPEN_COLUMNS = ['payment_id', 'row_number', 'cells'];
export const FAILURE_COLUMNS = ['account_id', 'import_id', 'row_number', 'cells', 'error'];

/** A number or null as COPY text. */
const numberText = (value: number | null): string => (value === null ? '\\N' : String(value));

/** The period and amounts of a row as COPY text: ended_at, duration_in_months, total_value, monthly_amount. */
function periodText(row: ParsedPaymentRow): string {
  return `${row.endedAt ?? '\\N'}\t${numberText(row.months)}\t${numberText(row.totalValue)}\t${row.monthlyAmount}`;
}

function paymentLine(account: string, importRef: string, row: ParsedPaymentRow): string {
  return `${account}\t${copyText(row.paymentId)}\t${copyText(row.customerId)}\t1\t${row.startedAt}\t${periodText(row)}\t${row.currency}\t${copyText(row.invoiceNumber)}\tcsv_import\t${importRef}\n`;
}

function itemLine(account: string, row: ParsedPaymentRow): string {
  return `${account}\t${copyText(row.paymentId)}\t0\t${copyText(row.productKey)}\t${row.itemType}\t${row.quantity}\n`;
}

/** A row's discount as a line of COPY text for payment_discounts ('' when it has none). */
function discountLine(account: string, row: ParsedPaymentRow): string {
  const discount = row.discount;
  if (!discount) return '';
  return `${account}\t${copyText(row.paymentId)}\t0\t${discount.kind}\t${discount.monthlyAmount}\t${numberText(discount.months)}\n`;
}

/** An open-ended row as a line of COPY text for import_open_rows. */
function openLine(paymentId: string, number: number, cells: readonly string[]): string {
  return `${copyText(paymentId)}\t${number}\t${copyText(arrayLiteral(cells))}\n`;
}

/**
 * A row whose payment exists as a line of COPY text for import_stage (no item: the mapping
 * names no product, type or units; no discount: it names no discount column, or the row has none).
 */
function stageLine(row: ParsedPaymentRow, withItem: boolean, withDiscount: boolean): string {
  const discount = withDiscount ? row.discount : null;
  return (
    `${copyText(row.paymentId)}\t${copyText(row.customerId)}\t${copyText(row.customerName)}\t${row.startedAt}\t${periodText(row)}\t${row.currency}\t` +
    `${copyText(row.invoiceNumber)}\t${withItem ? `${copyText(row.productKey)}\t${row.itemType}\t${row.quantity}` : '\\N\t\\N\t\\N'}\t` +
    `${discount ? `${discount.kind}\t${discount.monthlyAmount}\t${numberText(discount.months)}` : '\\N\t\\N\t\\N'}\n`
  );
}
