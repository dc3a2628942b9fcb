/**
 * The payment ids one import has seen, with the row that named each first: how a later row
 * naming the same payment is told apart (and reported) as the file streams by, without a
 * second read. A payment id of a CSV import is 'subh' + 12 base-62 characters
 * (subscriptionRows.ts `paymentIdOf`); the 12 characters are kept exactly, packed into two
 * numbers below 62^6 < 2^36, in an open-addressing table of typed arrays: about 30 bytes a
 * row, against about 100 for a Map of strings (a 200 MB file has some 5 million rows).
 */

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const DIGIT = new Int8Array(128).fill(-1);
for (let k = 0; k < ALPHABET.length; k++) DIGIT[ALPHABET.charCodeAt(k)] = k;
const PREFIX = 'subh';
const EMPTY = -1;

function half(id: string, from: number): number {
  let value = 0;
  for (let k = from; k < from + 6; k++) {
    const code = id.charCodeAt(k);
    const digit = code < 128 ? (DIGIT[code] as number) : -1;
    if (digit < 0) throw new RangeError(`not an import payment id: ${id}`);
    value = value * 62 + digit;
  }
  return value;
}

export class PaymentIdSet {
  private high: Float64Array;
  private low: Float64Array;
  private rows: Int32Array;
  private count = 0;

  constructor(capacity = 1 << 16) {
    this.high = new Float64Array(capacity);
    this.low = new Float64Array(capacity);
    this.rows = new Int32Array(capacity).fill(EMPTY);
  }

  /** A set sized for `rows` ids from the start (the file's row count is known): no growing, no old table beside the new. */
  static forRows(rows: number): PaymentIdSet {
    let capacity = 1 << 16;
    while (capacity * 7 < rows * 10) capacity *= 2;
    return new PaymentIdSet(capacity);
  }

  get size(): number {
    return this.count;
  }

  /** Adds `id` seen on `row`; answers the row that named it first, or null when it is new. */
  add(id: string, row: number): number | null {
    if (id.length !== PREFIX.length + 12 || !id.startsWith(PREFIX)) throw new RangeError(`not an import payment id: ${id}`);
    const high = half(id, 4);
    const low = half(id, 10);
    const found = this.place(high, low, row);
    if (found !== null) return found;
    this.count++;
    if (this.count * 10 > this.rows.length * 7) this.grow();
    return null;
  }

  /** Puts the key in its slot, or answers the row already there. */
  private place(high: number, low: number, row: number): number | null {
    const mask = this.rows.length - 1;
    // The ids are derived from SHA-256: their low bits are already uniform.
    let slot = (low ^ (high % 0x40000000)) & mask;
    for (;;) {
      const there = this.rows[slot] as number;
      if (there === EMPTY) {
        this.high[slot] = high;
        this.low[slot] = low;
        this.rows[slot] = row;
        return null;
      }
      if (this.high[slot] === high && this.low[slot] === low) return there;
      slot = (slot + 1) & mask;
    }
  }

  private grow(): void {
    const { high, low, rows } = this;
    const capacity = rows.length * 2;
    this.high = new Float64Array(capacity);
    this.low = new Float64Array(capacity);
    this.rows = new Int32Array(capacity).fill(EMPTY);
    for (let slot = 0; slot < rows.length; slot++) {
      const row = rows[slot] as number;
      if (row !== EMPTY) this.place(high[slot] as number, low[slot] as number, row);
    }
  }
}
