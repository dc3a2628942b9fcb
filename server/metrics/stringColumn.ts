/**
 * Many short strings (a million payment ids) held without a million string objects, so they
 * cost the garbage collector nothing: a snapshot holds them for drill-down, not for computing
 * (server/metrics/keyIndex.ts keeps them as slices of the few strings they arrived in).
 */
export interface StringColumn {
  readonly length: number;
  get(index: number): string;
  /** The index of a value, -1 when absent. */
  indexOf(value: string): number;
}
