import type { GrowableColumn } from '../growableColumn';
import type { CustomerSegmentRow } from './rows';

/** What the builder (builder.ts) accumulates per dictionary, attribute and customer segment, and finish.ts turns into columns. */

export class Interner {
  readonly values: string[] = [];
  readonly index = new Map<string, number>();
  intern(value: string): number {
    let found = this.index.get(value);
    if (found === undefined) {
      found = this.values.length;
      this.values.push(value);
      this.index.set(value, found);
    }
    return found;
  }
}

export interface AttributeBuilder {
  id: string;
  name: string;
  values: Interner;
  owner: GrowableColumn<Int32Array>;
  value: GrowableColumn<Int32Array>;
}

export interface SegmentBuilder {
  row: CustomerSegmentRow;
  values: Interner;
  customer: GrowableColumn<Int32Array>;
  month: GrowableColumn<Int32Array>;
  value: GrowableColumn<Int32Array>;
}
