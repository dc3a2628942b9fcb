/**
 * A set of strings kept outside the JavaScript heap: each key's UTF-16 code units in one growing
 * arena, found by an open-addressing table of typed arrays. For the customers and products a
 * reader has already handed over (subscriptionBatches.ts): hundreds of thousands of short ids,
 * about 14 bytes each plus two a character, against some 70 for a Set of strings, and no work
 * for the garbage collector.
 */
export class KeySet {
  /** Per slot: 0 when empty, else the key's offset in `units` plus one. */
  private slots: Int32Array;
  /** Per slot: the key's hash, compared before the key. */
  private hashes: Int32Array;
  /** Per key: its length (two units, low then high) then its code units. */
  private units: Uint16Array;
  private used = 0;
  private count = 0;

  constructor(capacity = 1 << 10) {
    let slots = 16;
    while (slots < capacity * 2) slots *= 2;
    this.slots = new Int32Array(slots);
    this.hashes = new Int32Array(slots);
    this.units = new Uint16Array(slots * 8);
  }

  get size(): number {
    return this.count;
  }

  /** Bytes its keys and table take. */
  get bytes(): number {
    return this.used * 2 + this.slots.length * 8;
  }

  has(key: string): boolean {
    return this.find(key, hashOf(key)) >= 0;
  }

  /** Adds `key`; answers whether it was new. */
  add(key: string): boolean {
    const hash = hashOf(key);
    if (this.find(key, hash) >= 0) return false;
    if ((this.count + 1) * 10 > this.slots.length * 7) this.grow();
    const offset = this.store(key);
    this.place(hash, offset);
    this.count++;
    return true;
  }

  /** The slot holding `key`, or -1. */
  private find(key: string, hash: number): number {
    const mask = this.slots.length - 1;
    for (let slot = hash & mask; ; slot = (slot + 1) & mask) {
      const at = this.slots[slot] as number;
      if (at === 0) return -1;
      if (this.hashes[slot] === hash && this.equals(at - 1, key)) return slot;
    }
  }

  private equals(offset: number, key: string): boolean {
    const { units } = this;
    const length = (units[offset] as number) | ((units[offset + 1] as number) << 16);
    if (length !== key.length) return false;
    for (let k = 0; k < length; k++) if (units[offset + 2 + k] !== key.charCodeAt(k)) return false;
    return true;
  }

  private store(key: string): number {
    const need = this.used + 2 + key.length;
    if (need > this.units.length) {
      let size = this.units.length * 2;
      while (size < need) size *= 2;
      const units = new Uint16Array(size);
      units.set(this.units.subarray(0, this.used));
      this.units = units;
    }
    const offset = this.used;
    this.units[offset] = key.length & 0xffff;
    this.units[offset + 1] = key.length >>> 16;
    for (let k = 0; k < key.length; k++) this.units[offset + 2 + k] = key.charCodeAt(k);
    this.used = need;
    return offset;
  }

  private place(hash: number, offset: number): void {
    const mask = this.slots.length - 1;
    let slot = hash & mask;
    while (this.slots[slot] !== 0) slot = (slot + 1) & mask;
    this.slots[slot] = offset + 1;
    this.hashes[slot] = hash;
  }

  private grow(): void {
    const { slots, hashes } = this;
    this.slots = new Int32Array(slots.length * 2);
    this.hashes = new Int32Array(slots.length * 2);
    for (let slot = 0; slot < slots.length; slot++) {
      const at = slots[slot] as number;
      if (at !== 0) this.place(hashes[slot] as number, at - 1);
    }
  }
}

/** FNV-1a over the code units, then murmur3's finalizer (linear probing wants well-spread low bits). */
function hashOf(key: string): number {
  let hash = 0x811c9dc5;
  for (let k = 0; k < key.length; k++) hash = Math.imul(hash ^ key.charCodeAt(k), 0x01000193);
  hash ^= hash >>> 16;
  hash = Math.imul(hash, 0x85ebca6b);
  hash ^= hash >>> 13;
  hash = Math.imul(hash, 0xc2b2ae35);
  return hash ^ (hash >>> 16);
}
