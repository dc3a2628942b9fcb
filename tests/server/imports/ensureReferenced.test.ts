import { describe, expect, it } from 'vitest';
import { ensureReferenced } from '../../../server/imports/subscriptionImport';

/** A table of keys other transactions may delete between the import's insert and its lock. */
function table(existing: string[], deleteBeforeLock: string[][] = []) {
  const rows = new Set(existing);
  const inserts: string[][] = [];
  const locks: string[][] = [];
  return {
    rows,
    inserts,
    locks,
    insertMissing: async (missing: ReadonlyMap<string, string>) => {
      inserts.push([...missing.keys()]);
      const inserted = [...missing.keys()].filter((key) => !rows.has(key));
      for (const key of inserted) rows.add(key);
      return inserted;
    },
    lockExisting: async (keys: string[]) => {
      for (const key of deleteBeforeLock.shift() ?? []) rows.delete(key);
      locks.push(keys);
      return keys.filter((key) => rows.has(key));
    },
  };
}
const wanted = (...keys: string[]) => new Map(keys.map((key) => [key, key]));

describe('ensureReferenced: every key exists, and the ones that existed are locked', () => {
  it('inserts the missing keys and locks only the ones that were there', async () => {
    const t = table(['a']);
    expect(await ensureReferenced(wanted('a', 'b'), true, t.insertMissing, t.lockExisting)).toBe(1);
    expect([...t.rows].sort()).toEqual(['a', 'b']);
    expect(t.locks).toEqual([['a']]);
  });

  it('inserts again a key deleted by someone else between the insert and the lock', async () => {
    const t = table(['a', 'c'], [['a']]);
    expect(await ensureReferenced(wanted('a', 'b', 'c'), true, t.insertMissing, t.lockExisting)).toBe(2);
    expect(t.inserts).toEqual([['a', 'b', 'c'], ['a']]);
    expect([...t.rows].sort()).toEqual(['a', 'b', 'c']);
  });

  it('gives up with an error when the keys keep disappearing', async () => {
    const t = table(['a'], [['a'], ['a'], ['a']]);
    // Re-inserted each time, deleted again before each lock.
    const insertMissing = async (missing: ReadonlyMap<string, string>) => {
      t.inserts.push([...missing.keys()]);
      return [];
    };
    await expect(ensureReferenced(wanted('a'), true, insertMissing, t.lockExisting)).rejects.toThrow('kept being deleted');
    expect(t.locks).toHaveLength(3);
  });

  it('takes no lock when the row triggers check the references', async () => {
    const t = table(['a']);
    await ensureReferenced(wanted('a', 'b'), false, t.insertMissing, t.lockExisting);
    expect(t.locks).toEqual([]);
    expect([...t.rows].sort()).toEqual(['a', 'b']);
  });
});
