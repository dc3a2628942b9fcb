import type { StringColumn } from './stringColumn';

/**
 * Dense indices of string keys that are slices of larger strings: a million payment ids
 * arrive as one aggregated text value (server/metrics/loadSnapshot.ts), and looking them up
 * must not make a million small strings. Keys are hashed and compared character by character
 * in place; an entry is (source string, start, end). Open addressing with linear probing.
 */
export interface KeyIndexState {
  sources: string[];
  entries: Int32Array<ArrayBuffer>;
  slots: Int32Array<ArrayBuffer>;
  count: number;
}

const KEY_INDEX_OF = new WeakMap<StringColumn, KeyIndex>();

export class KeyIndex {
  private readonly sources: string[] = [];
  /** Per entry: source, start, end, hash (one cache line holds what a probe reads). */
  private entries = new Int32Array(4 * 1024);
  /** Per slot: entry + 1 (0 = empty) and the entry's hash. */
  private slots = new Int32Array(2 * 1024);
  private mask = 1023;
  count = 0;

  /** Makes room for `more` entries at once (no rehashing while they are added). */
  reserve(more: number): void {
    const needed = this.count + more;
    if (needed * 4 > this.entries.length) {
      const grown = new Int32Array(needed * 4);
      grown.set(this.entries.subarray(0, this.count * 4));
      this.entries = grown;
    }
    let size = this.mask + 1;
    while (needed * 2 > size) size *= 2;
    if (size !== this.mask + 1) this.rehash(size);
  }

  /** Registers a source string that later `add`/`find` calls refer to by its number. */
  source(text: string): number {
    this.sources.push(text);
    return this.sources.length - 1;
  }

  /** The text of a registered source. */
  sourceText(source: number): string {
    return this.sources[source] as string;
  }

  /** The entry of the key text[start, end), or -1. */
  find(text: string, start: number, end: number): number {
    return this.probe(hashOf(text, start, end), text, start, end);
  }

  /**
   * Like `find`, looking first at `hint` (the entry found for the previous key: a customer's
   * payments follow each other) and the `window` entries after it (tables written together are
   * read back in nearly the same order): those entries are in cache, a hashed slot is a miss.
   */
  findNear(text: string, start: number, end: number, hint: number, window = 32): number {
    const hash = hashOf(text, start, end);
    const entries = this.entries;
    const last = Math.min(this.count - 1, hint + window);
    for (let entry = Math.max(0, hint); entry <= last; entry++) {
      if (entries[4 * entry + 3] === hash && this.equals(entry, text, start, end)) return entry;
    }
    return this.probe(hash, text, start, end);
  }

  /** The entry of the key with this hash through the slots, or -1. */
  private probe(hash: number, text: string, start: number, end: number): number {
    const { slots, mask } = this;
    let slot = hash & mask;
    for (;;) {
      const entry = (slots[2 * slot] as number) - 1;
      if (entry < 0) return -1;
      if (slots[2 * slot + 1] === hash && this.equals(entry, text, start, end)) return entry;
      slot = (slot + 1) & mask;
    }
  }

  /** Adds the key text[start, end) of source number `sourceIndex` (text = that source); -1 when it is already there. */
  add(sourceIndex: number, start: number, end: number): number {
    const text = this.sources[sourceIndex] as string;
    if ((this.count + 1) * 2 > this.mask + 1) this.rehash((this.mask + 1) * 2);
    if ((this.count + 1) * 4 > this.entries.length) {
      const grown = new Int32Array(this.entries.length * 2);
      grown.set(this.entries);
      this.entries = grown;
    }
    const { slots, mask } = this;
    const hash = hashOf(text, start, end);
    let slot = hash & mask;
    for (;;) {
      const entry = (slots[2 * slot] as number) - 1;
      if (entry < 0) break;
      if (slots[2 * slot + 1] === hash && this.equals(entry, text, start, end)) return -1;
      slot = (slot + 1) & mask;
    }
    const entry = this.count++;
    slots[2 * slot] = entry + 1;
    slots[2 * slot + 1] = hash;
    const at = 4 * entry;
    const entries = this.entries;
    entries[at] = sourceIndex;
    entries[at + 1] = start;
    entries[at + 2] = end;
    entries[at + 3] = hash;
    return entry;
  }

  /** Adds a whole string as a key; -1 when it is already there. */
  addString(key: string): number {
    return this.add(this.source(key), 0, key.length);
  }

  findString(key: string): number {
    return this.find(key, 0, key.length);
  }

  get(entry: number): string {
    if (!(entry >= 0 && entry < this.count)) throw new RangeError(`no key at ${entry}`);
    const text = this.sources[this.entries[4 * entry] as number] as string;
    const start = this.entries[4 * entry + 1] as number;
    const end = this.entries[4 * entry + 2] as number;
    return start === 0 && end === text.length ? text : text.slice(start, end);
  }

  /** The keys as a StringColumn (it shares this index; add nothing afterwards). */
  toStringColumn(): StringColumn {
    const column = {
      length: this.count,
      get: (index: number) => this.get(index),
      indexOf: (value: string) => this.findString(value),
    };
    KEY_INDEX_OF.set(column, this);
    return column;
  }

  /** Everything the index holds, as plain data (strings and typed arrays) for `fromState`. */
  exportState(): KeyIndexState {
    return { sources: [...this.sources], entries: this.entries.slice(0, 4 * this.count), slots: this.slots, count: this.count };
  }

  static fromState(state: KeyIndexState): KeyIndex {
    const index = new KeyIndex();
    index.sources.push(...state.sources);
    index.entries = state.entries.length > 0 ? state.entries : new Int32Array(4);
    index.slots = state.slots;
    index.mask = state.slots.length / 2 - 1;
    index.count = state.count;
    return index;
  }

  /** The index behind a column made by `toStringColumn`, if it was. */
  static of(column: StringColumn): KeyIndex | undefined {
    return KEY_INDEX_OF.get(column);
  }

  private equals(entry: number, text: string, start: number, end: number): boolean {
    const at = 4 * entry;
    const entries = this.entries;
    const from = entries[at + 1] as number;
    const length = end - start;
    if ((entries[at + 2] as number) - from !== length) return false;
    const other = this.sources[entries[at] as number] as string;
    for (let k = 0; k < length; k++) if (other.charCodeAt(from + k) !== text.charCodeAt(start + k)) return false;
    return true;
  }

  private rehash(size: number): void {
    const slots = new Int32Array(2 * size);
    const mask = size - 1;
    const entries = this.entries;
    for (let entry = 0; entry < this.count; entry++) {
      const hash = entries[4 * entry + 3] as number;
      let slot = hash & mask;
      while ((slots[2 * slot] as number) !== 0) slot = (slot + 1) & mask;
      slots[2 * slot] = entry + 1;
      slots[2 * slot + 1] = hash;
    }
    this.slots = slots;
    this.mask = mask;
  }
}

/** FNV-1a over UTF-16 code units, with a final mix so that the low bits spread. */
function hashOf(text: string, start: number, end: number): number {
  let h = 0x811c9dc5;
  for (let k = start; k < end; k++) h = Math.imul(h ^ text.charCodeAt(k), 0x01000193);
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  return h | 0;
}
