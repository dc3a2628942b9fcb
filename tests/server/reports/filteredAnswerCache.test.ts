import { describe, expect, it } from 'vitest';
import { FilteredAnswerCache, type ReportStamp } from '../../../server/reports/answerCache';

/** The filtered answers' cache: per stamp, bounded, least recently used out, one build for concurrent asks. */

const report = (stamp: string, id = 'rep1'): ReportStamp => ({ account_id: 'acc1', id, anonymous_access_allowed: false, is_demo: false, stamp });

describe('FilteredAnswerCache', () => {
  it('answers a key again without building while the stamp holds, and builds again when it moves', async () => {
    const cache = new FilteredAnswerCache(4);
    let built = 0;
    const build = async () => JSON.stringify({ n: ++built });
    const first = await cache.answer(report('1/1/USD'), 'gold', build);
    const again = await cache.answer(report('1/1/USD'), 'gold', build);
    expect(again).toBe(first);
    expect(built).toBe(1);
    expect(first.etag).toMatch(/^"[\w-]+"$/);
    const moved = await cache.answer(report('2/1/USD'), 'gold', build);
    expect(built).toBe(2);
    expect(moved.json.toString()).toBe('{"n":2}');
    // Another report with the same key is another answer.
    await cache.answer(report('1/1/USD', 'rep2'), 'gold', build);
    expect(built).toBe(3);
  });

  it('keeps at most its bound, dropping the least recently used', async () => {
    const cache = new FilteredAnswerCache(2);
    let built = 0;
    const build = async () => String(++built);
    await cache.answer(report('s'), 'a', build);
    await cache.answer(report('s'), 'b', build);
    await cache.answer(report('s'), 'a', build);
    await cache.answer(report('s'), 'c', build);
    expect(cache.size).toBe(2);
    expect(built).toBe(3);
    await cache.answer(report('s'), 'a', build);
    expect(built).toBe(3);
    await cache.answer(report('s'), 'b', build);
    expect(built).toBe(4);
  });

  it('builds once for concurrent asks of one key, and keeps no failed build', async () => {
    const cache = new FilteredAnswerCache();
    let built = 0;
    let release = () => {};
    const gate = new Promise<void>((resolve) => (release = resolve));
    const build = async () => {
      built++;
      await gate;
      return '{}';
    };
    const both = Promise.all([cache.answer(report('s'), 'k', build), cache.answer(report('s'), 'k', build)]);
    release();
    const [a, b] = await both;
    expect(a).toBe(b);
    expect(built).toBe(1);
    await expect(cache.answer(report('t'), 'k', async () => Promise.reject(new Error('no')))).rejects.toThrow('no');
    expect((await cache.answer(report('t'), 'k', async () => '{"ok":true}')).json.toString()).toBe('{"ok":true}');
  });
});
