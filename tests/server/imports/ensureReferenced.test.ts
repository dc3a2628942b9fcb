import { describe, expect, it } from 'vitest';
import { ensureReferenced } from '../../../server/imports/subscriptionImport';

/**
 * A batch's keys against a table other transactions may delete from between the import's
 * insert and its lock, as the job's key table sees it: each key present (inserted or locked) or not.
 */
function table(existing: string[], wanted: string[], deleteBeforeLock: string[][] = []) {
  const rows = new Set(existing);
  const present = new Set<string>();
  const inserts: string[][] = [];
  const locks: string[][] = [];
  return {
    rows,
    inserts,
    locks,
    insertMissing: async () => {
      const tried = wanted.filter((key) => !present.has(key));
      inserts.push(tried);
      const inserted = tried.filter((key) => !rows.has(key));
      for (const key of inserted) {
        rows.add(key);
        present.add(key);
      }
      return inserted.length;
    },
    lockExisting: async () => {
      for (const key of deleteBeforeLock.shift() ?? []) rows.delete(key);
      const locked = wanted.filter((key) => !present.has(key) && rows.has(key));
      locks.push(locked);
      for (const key of locked) present.add(key);
      return wanted.filter((key) => !present.has(key)).length;
    },
  };
}

describe('ensureReferenced: every key exists, and the ones that existed are locked', () => {
  it('inserts the missing keys and locks only the ones that were there', async () => {
    const t = table(['a'], ['a', 'b']);
    expect(await ensureReferenced(true, t.insertMissing, t.lockExisting)).toBe(1);
    expect([...t.rows].sort()).toEqual(['a', 'b']);
    expect(t.locks).toEqual([['a']]);
  });

  it('inserts again a key deleted by someone else between the insert and the lock', async () => {
    const t = table(['a', 'c'], ['a', 'b', 'c'], [['a']]);
    expect(await ensureReferenced(true, t.insertMissing, t.lockExisting)).toBe(2);
    expect(t.inserts).toEqual([['a', 'b', 'c'], ['a']]);
    expect(t.locks).toEqual([['c'], []]);
    expect([...t.rows].sort()).toEqual(['a', 'b', 'c']);
  });

  it('gives up with an error when the keys keep disappearing', async () => {
    const t = table(['a'], ['a'], [['a'], ['a'], ['a']]);
    // Never inserted (someone else's row conflicts each time), deleted again before each lock.
    const insertMissing = async () => {
      t.inserts.push(['a']);
      return 0;
    };
    await expect(ensureReferenced(true, insertMissing, t.lockExisting)).rejects.toThrow('kept being deleted');
    expect(t.locks).toHaveLength(3);
  });

  it('takes no lock when the row triggers check the references', async () => {
    const t = table(['a'], ['a', 'b']);
    expect(await ensureReferenced(false, t.insertMissing, t.lockExisting)).toBe(1);
    expect(t.locks).toEqual([]);
    expect([...t.rows].sort()).toEqual(['a', 'b']);
  });
});
