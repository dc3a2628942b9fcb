/**
 * The payment ids one import has seen, as a Bloom filter of a fixed size: how the reader tells,
 * in bounded memory whatever the file's length, that a row may name a payment an earlier batch
 * of the file named. "No" is certain: the row is new to the file. "Maybe" makes the row a
 * suspect, settled by the job against what the import has written (subscriptionImport.ts):
 * either a repeat (reported) or a false alarm (written like any row).
 *
 * A payment id of a CSV import is 'subh' + 12 base-62 characters derived from SHA-256
 * (subscriptionRows.ts `paymentIdOf`), read here as two numbers below 62^6 < 2^36, mixed into
 * the filter's six positions (double hashing).
 *
 * Sized from the file's row count: about 16 to 32 bits a row, at most 2^27 bits (16 MB, a 200 MB
 * file of short rows has some 8 million). At 16 bits a row and 6 positions, about one new row in
 * a thousand is a false alarm.
 */

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const DIGIT = new Int8Array(128).fill(-1);
for (let k = 0; k < ALPHABET.length; k++) DIGIT[ALPHABET.charCodeAt(k)] = k;
const PREFIX = 'subh';
/** Positions per id. */
const PROBES = 6;
const MIN_BITS = 1 << 16;
export const MAX_BITS = 1 << 27;

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

function mix(value: number): number {
  let h = value ^ (value >>> 16);
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return h ^ (h >>> 16);
}

export class PaymentIdFilter {
  private readonly words: Int32Array;
  private readonly mask: number;

  /** `bits`: a power of two (a few: nearly every id after the first is a false alarm, as tests want). */
  constructor(readonly bits: number) {
    if (!Number.isInteger(Math.log2(bits)) || bits > MAX_BITS) throw new RangeError(`a filter's bits are a power of two up to 2^27: ${bits}`);
    this.words = new Int32Array(Math.ceil(bits / 32));
    this.mask = bits - 1;
  }

  /** A filter for a file of `rows` rows: the power of two of at least 16 bits a row, within 2^16 and 2^27. */
  static forRows(rows: number): PaymentIdFilter {
    let bits = MIN_BITS;
    while (bits < rows * 16 && bits < MAX_BITS) bits *= 2;
    return new PaymentIdFilter(bits);
  }

  /** Adds `id`; answers whether it may have been added before (false: certainly not). */
  add(id: string): boolean {
    if (id.length !== PREFIX.length + 12 || !id.startsWith(PREFIX)) throw new RangeError(`not an import payment id: ${id}`);
    const high = half(id, 4);
    const low = half(id, 10);
    // Base-62 digits are not uniform bits: both halves are mixed (murmur3's finalizer) into the
    // first position and an odd step, so the six positions differ and are independent enough.
    const a = high >>> 0;
    const b = low >>> 0;
    const first = mix(Math.imul(a, 0x9e3779b1) ^ b ^ (Math.floor(high / 2 ** 32) << 28) ^ (Math.floor(low / 2 ** 32) << 24));
    const step = mix(first ^ Math.imul(b, 0x85ebca6b) ^ a) | 1;
    let seen = true;
    for (let probe = 0; probe < PROBES; probe++) {
      const bit = (first + Math.imul(probe, step)) & this.mask;
      const word = bit >>> 5;
      const flag = 1 << (bit & 31);
      const held = this.words[word] as number;
      if ((held & flag) === 0) {
        seen = false;
        this.words[word] = held | flag;
      }
    }
    return seen;
  }
}
