/**
 * Random letters and digits from the platform's CSPRNG (Web Crypto: the browser's, or Node's
 * `globalThis.crypto`), for ids the client and the server both make. Bytes are drawn 4 KiB at a
 * time: a sync or an import makes tens of thousands of ids, and one call into the CSPRNG per id
 * cost more than the rest of making them. Each byte is used once, then the pool is filled anew.
 */

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const pool = new Uint8Array(4096);
let poolAt = pool.length;

function randomByte(): number {
  if (poolAt === pool.length) {
    crypto.getRandomValues(pool);
    poolAt = 0;
  }
  return pool[poolAt++] as number;
}

/** `length` characters [A-Za-z0-9], each equally likely (256 = 4 x 62 + 8: bytes 248..255 are rejected). */
export function randomAlphanumeric(length: number): string {
  let out = '';
  while (out.length < length) {
    const byte = randomByte();
    if (byte < 248) out += ALPHABET[byte % 62];
  }
  return out;
}

/**
 * Letters and digits in byte order ('0' < 'A' < 'a'), so that a fixed-length string of them
 * sorts as the number it spells, in PostgreSQL's "C" and "C.UTF-8" collations alike.
 */
const ORDERED_DIGITS = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/** Characters of the time part: milliseconds since 1970 in base 62 (62^7 ms reach the year 2081). */
const TIME_LENGTH = 7;

/** The last id made per length: its time (ms) and the digits of its random part. */
const lastOrdered = new Map<number, { time: number; digits: number[] }>();

/**
 * `length` characters [A-Za-z0-9] (at least 12) that sort in the order they were made, for the
 * primary keys of rows written in bulk (payments, customers). The first 7 spell the time in
 * milliseconds; the rest are random, except that an id made in the same millisecond as the one
 * before it (or when the clock went back) is that one plus one, so ids of one process never repeat
 * and always rise. Why rising keys: a row's key then lands on the right edge of each B-tree
 * index it is in, the page PostgreSQL has at hand, instead of on a random page of the index:
 * a first sync of 100,000 customers and 180,000 payments costs the database about a fifth less
 * (docs/stripe.md "Speed"). The ids are no secret (every read is scoped by account); their first
 * part says when a row was made, as its created_at does.
 */
export function orderedAlphanumeric(length: number): string {
  if (!Number.isInteger(length) || length < TIME_LENGTH + 5) throw new RangeError(`an ordered id has at least ${TIME_LENGTH + 5} characters`);
  const now = Date.now();
  const last = lastOrdered.get(length);
  let time: number;
  let digits: number[];
  if (last && now <= last.time) {
    // The same millisecond (or the clock went back): one more than the last id.
    time = last.time;
    digits = last.digits.slice();
    let k = digits.length - 1;
    while (k >= 0 && digits[k] === 61) digits[k--] = 0;
    if (k >= 0) digits[k] = (digits[k] as number) + 1;
    else time += 1; // every random digit was 'z': the next millisecond's first id
  } else {
    time = now;
    digits = [];
    // The first random digit below 31: a millisecond's ids then have half the random range to
    // count up in before they would carry into the time.
    while (digits.length < length - TIME_LENGTH) {
      const byte = randomByte();
      if (byte >= 248) continue;
      digits.push(digits.length === 0 ? byte % 31 : byte % 62);
    }
  }
  lastOrdered.set(length, { time, digits });
  let out = '';
  for (let k = TIME_LENGTH - 1, rest = time; k >= 0; k--, rest = Math.floor(rest / 62)) out = ORDERED_DIGITS[rest % 62] + out;
  for (const digit of digits) out += ORDERED_DIGITS[digit];
  return out;
}
