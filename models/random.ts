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
