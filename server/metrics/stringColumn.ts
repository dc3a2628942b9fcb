/**
 * Many short strings (a million payment ids) packed into one typed array, so they cost the
 * garbage collector nothing: a snapshot holds them for drill-down, not for computing.
 */
export interface StringColumn {
  readonly length: number;
  get(index: number): string;
  /** The index of a value (a linear scan: for the rare look-up, not for loops). */
  indexOf(value: string): number;
}

export function packStrings(values: readonly string[]): StringColumn {
  let size = 0;
  for (const value of values) size += value.length;
  const chars = new Uint16Array(size);
  const offsets = new Int32Array(values.length + 1);
  let at = 0;
  values.forEach((value, index) => {
    offsets[index] = at;
    for (let k = 0; k < value.length; k++) chars[at++] = value.charCodeAt(k);
  });
  const length = values.length;
  offsets[length] = at;
  // Nothing below may refer to `values`: the column must not keep the strings alive.
  const get = (index: number): string => {
    if (!(index >= 0 && index < length)) throw new RangeError(`no string at ${index}`);
    return String.fromCharCode(...chars.subarray(offsets[index] as number, offsets[index + 1] as number));
  };
  return {
    length,
    get,
    indexOf(value) {
      for (let index = 0; index < offsets.length - 1; index++) {
        if ((offsets[index + 1] as number) - (offsets[index] as number) === value.length && get(index) === value) return index;
      }
      return -1;
    },
  };
}
