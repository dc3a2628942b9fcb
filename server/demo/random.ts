/**
 * A small, fast, seeded pseudo-random generator (sfc32, seeded through splitmix32) and the
 * helpers the demo generator needs. Same seed, same sequence, on every platform.
 */
export interface Random {
  /** Uniform in [0, 1). */
  next(): number;
  /** Uniform 32-bit unsigned integer. */
  uint32(): number;
  /** Uniform integer in [min, max] (both inclusive). */
  int(min: number, max: number): number;
  /** True with probability p. */
  chance(p: number): boolean;
  pick<T>(items: readonly T[]): T;
  /** Picks by the weights of a table built with `weightedTable`. */
  weighted<T>(table: WeightedTable<T>): T;
  /** Approximately normal (Irwin-Hall of 4), mean 0, standard deviation 1. */
  gaussian(): number;
}

export interface WeightedTable<T> {
  readonly items: readonly T[];
  /** Cumulative weights, normalised so the last one is 1. */
  readonly cumulative: Float64Array;
}

export function weightedTable<T>(entries: readonly (readonly [T, number])[]): WeightedTable<T> {
  const total = entries.reduce((sum, [, weight]) => sum + weight, 0);
  if (!(total > 0)) throw new Error('weightedTable needs a positive total weight');
  const cumulative = new Float64Array(entries.length);
  let running = 0;
  entries.forEach(([, weight], index) => {
    running += weight;
    cumulative[index] = running / total;
  });
  cumulative[entries.length - 1] = 1;
  return { items: entries.map(([item]) => item), cumulative };
}

function splitmix32(state: number): () => number {
  let s = state | 0;
  return () => {
    s = (s + 0x9e3779b9) | 0;
    let z = s;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
    return (z ^ (z >>> 16)) >>> 0;
  };
}

export function createRandom(seed: number): Random {
  const init = splitmix32(Math.floor(seed) ^ 0x5bd1e995);
  let a = init() | 0;
  let b = init() | 0;
  let c = init() | 0;
  let d = 1;
  const nextUint32 = (): number => {
    const t = (((a + b) | 0) + d) | 0;
    d = (d + 1) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    c = (c + t) | 0;
    return t >>> 0;
  };
  // Warm up so that nearby seeds diverge at once.
  for (let i = 0; i < 12; i++) nextUint32();
  const next = () => nextUint32() / 4294967296;
  return {
    next,
    uint32: nextUint32,
    int: (min, max) => min + Math.floor(next() * (max - min + 1)),
    chance: (p) => next() < p,
    pick<T>(items: readonly T[]): T {
      if (items.length === 0) throw new Error('pick from an empty list');
      return items[Math.floor(next() * items.length)] as T;
    },
    weighted<T>(table: WeightedTable<T>): T {
      const r = next();
      const { cumulative, items } = table;
      let lo = 0;
      let hi = cumulative.length - 1;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (r < (cumulative[mid] as number)) hi = mid;
        else lo = mid + 1;
      }
      return items[lo] as T;
    },
    gaussian: () => (next() + next() + next() + next() - 2) * Math.sqrt(3),
  };
}

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const ALPHABET_CODES = [...ALPHABET].map((char) => char.charCodeAt(0));
const SUFFIX_SPACE = 62 ** 5; // 916,132,832
/** Odd and not a multiple of 31, so coprime with 62^5; small enough that counter * A < 2^53. */
const SUFFIX_MULTIPLIER = 9_576_583;

/**
 * Ids of the form prefix + 12 characters [A-Za-z0-9]: 7 random characters, then 5 that are
 * a bijective scramble of a counter, so ids from one factory never collide (for fewer than
 * 62^5 ids) while still looking random.
 */
export function createIdFactory(random: Random, prefix: string): () => string {
  let counter = 0;
  const offset = Math.floor(random.next() * SUFFIX_SPACE);
  const codes: number[] = [...prefix].map((char) => char.charCodeAt(0));
  const base = codes.length;
  return () => {
    if (counter >= SUFFIX_SPACE) throw new Error(`id space of '${prefix}' exhausted`);
    // 7 random characters from two draws: 4 + 3 (62^4 and 62^3 divide 2^32 almost evenly).
    let r = random.uint32() % 14_776_336;
    for (let i = 0; i < 4; i++) {
      codes[base + i] = ALPHABET_CODES[r % 62] as number;
      r = Math.floor(r / 62);
    }
    r = random.uint32() % 238_328;
    for (let i = 4; i < 7; i++) {
      codes[base + i] = ALPHABET_CODES[r % 62] as number;
      r = Math.floor(r / 62);
    }
    let x = (counter * SUFFIX_MULTIPLIER + offset) % SUFFIX_SPACE;
    counter++;
    for (let i = 11; i >= 7; i--) {
      codes[base + i] = ALPHABET_CODES[x % 62] as number;
      x = Math.floor(x / 62);
    }
    // One flat string (no rope of concatenations): ids are kept by the million.
    return String.fromCharCode(...codes);
  };
}
