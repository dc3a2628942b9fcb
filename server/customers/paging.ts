import type { Direction, SortKey } from './customerIndex';

/**
 * `sort_by` and the opaque keyset cursors of `GET /customers` (docs/customers.md "Paging"). A
 * cursor names the sort it belongs to and the (key, id) of the item the page starts after
 * (`next`) or ends before (`prev`); it is base64url JSON, opaque to the client.
 */

export interface Sort {
  column: string;
  direction: Direction;
}

export const DEFAULT_SORT = 'name:asc';
/** The columns every account has; `customer_segment:{id}` and `definition:{id}` depend on the account. */
export const STATIC_COLUMNS = ['name', 'public_id', 'added_at', 'id', 'mrr', 'total'] as const;
const SORT_PATTERN = /^(name|public_id|added_at|id|mrr|total|customer_segment:[^:]+|definition:[^:]+):(asc|desc)$/;

/** Null when `sortBy` is not `{column}:{asc|desc}` of a column the grammar knows (the account's segments and definitions are checked by the caller). */
export function parseSort(sortBy: string | undefined): Sort | null {
  const match = SORT_PATTERN.exec(sortBy ?? DEFAULT_SORT);
  if (!match) return null;
  return { column: match[1] as string, direction: match[2] as Direction };
}

export interface Cursor {
  key: SortKey;
  id: string;
}

export function encodeCursor(sort: Sort, key: SortKey, id: string): string {
  return Buffer.from(JSON.stringify([`${sort.column}:${sort.direction}`, key, id]), 'utf8').toString('base64url');
}

/** Null for anything that is not a cursor of this sort. */
export function decodeCursor(sort: Sort, text: string): Cursor | null {
  try {
    const value: unknown = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
    if (!Array.isArray(value) || value.length !== 3) return null;
    const [of, key, id] = value as unknown[];
    if (of !== `${sort.column}:${sort.direction}` || typeof id !== 'string') return null;
    if (key !== null && typeof key !== 'string' && !(typeof key === 'number' && Number.isFinite(key))) return null;
    return { key: key as SortKey, id };
  } catch {
    return null;
  }
}
