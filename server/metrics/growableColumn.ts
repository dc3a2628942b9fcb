/**
 * A typed-array column that grows while rows stream in (the snapshot builder appends one
 * page at a time) and is trimmed to its length at the end.
 */
type TypedArray = Int32Array | Float64Array | Uint8Array;
type TypedArrayConstructor<T extends TypedArray> = new (length: number) => T;

export class GrowableColumn<T extends TypedArray> {
  private data: T;
  length = 0;

  constructor(
    private readonly Type: TypedArrayConstructor<T>,
    capacity = 1024,
  ) {
    this.data = new Type(capacity);
  }

  push(value: number): void {
    if (this.length === this.data.length) {
      const grown = new this.Type(this.data.length * 2);
      grown.set(this.data);
      this.data = grown;
    }
    this.data[this.length++] = value;
  }

  get(index: number): number {
    return this.data[index] as number;
  }

  /** A copy holding exactly the pushed values. */
  toArray(): T {
    return this.data.slice(0, this.length) as T;
  }
}

export const int32Column = (capacity?: number) => new GrowableColumn(Int32Array, capacity);
export const float64Column = (capacity?: number) => new GrowableColumn(Float64Array, capacity);
export const uint8Column = (capacity?: number) => new GrowableColumn(Uint8Array, capacity);
