import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { sql, type Kysely } from 'kysely';
import type { DB } from '../db/schema';

/**
 * What `GET /business_reports/by_secret` needs before it can answer: who may read the report,
 * and a stamp of everything its answer is made of. The report's `revision` is raised by
 * triggers on every write to the report, its settings, sections, their segments and key
 * numbers, and on a new name of its owner (migration 0010); the account's `data_version`
 * decides freshness, its currency the default currency. One query: the secret's index and the
 * account's primary key.
 */
export interface ReportStamp {
  account_id: string;
  id: string;
  anonymous_access_allowed: boolean;
  /** A report of the demo account: public at /demo/{secret}, read only. */
  is_demo: boolean;
  stamp: string;
}

export async function reportStampBySecret(db: Kysely<DB>, secret: string): Promise<ReportStamp | undefined> {
  return db
    .selectFrom('business_reports as r')
    .innerJoin('accounts as a', 'a.id', 'r.account_id')
    .select(['r.account_id', 'r.id', 'a.anonymous_access_allowed', 'a.is_demo', sql<string>`concat_ws('/', r.revision, a.data_version, a.currency)`.as('stamp')])
    .where('r.secret', '=', secret)
    .executeTakeFirst();
}

/** One serialised answer: its bytes, gzipped on first need, and an entity tag. */
export interface CachedAnswer {
  json: Buffer;
  etag: string;
  gzip(): Buffer;
}

interface Entry {
  stamp: string;
  /** By `can_edit`, the only part of the answer that depends on who asks. */
  answers: Map<boolean, CachedAnswer>;
  bytes: number;
}

/**
 * The last serialised `by_secret` answer of each report, in the report's own currency, valid
 * while its stamp is the one the database has now (so every server process sees a write at
 * once: nothing waits for a notification). Least recently used reports leave first once the
 * entries pass `maxBytes`.
 */
export class ReportAnswerCache {
  private readonly entries = new Map<string, Entry>();
  private bytes = 0;

  constructor(private readonly maxBytes = 64 * 1024 * 1024) {}

  /** The answer for this stamp; `build` makes it (and the previous one is dropped) when the stamp moved on. */
  async answer(report: ReportStamp, canEdit: boolean, build: () => Promise<string>): Promise<CachedAnswer> {
    const key = `${report.account_id}/${report.id}`;
    let entry = this.entries.get(key);
    if (entry && entry.stamp !== report.stamp) {
      this.drop(key, entry);
      entry = undefined;
    }
    if (entry) {
      // Most recently used last.
      this.entries.delete(key);
      this.entries.set(key, entry);
      const found = entry.answers.get(canEdit);
      if (found) return found;
    }
    const json = Buffer.from(await build());
    const answer = cachedAnswer(json, `"${createHash('sha1').update(json).digest('base64url')}"`);
    // Another request may have built it meanwhile; the stamp read before building is the one kept.
    const current = this.entries.get(key);
    const target = current && current.stamp === report.stamp ? current : { stamp: report.stamp, answers: new Map<boolean, CachedAnswer>(), bytes: 0 };
    if (current && current !== target) this.drop(key, current);
    if (!target.answers.has(canEdit)) {
      target.answers.set(canEdit, answer);
      target.bytes += json.length;
      this.bytes += json.length;
    }
    this.entries.set(key, target);
    this.evict();
    return target.answers.get(canEdit) ?? answer;
  }

  /** Entries held and their bytes (for tests and the bench). */
  get size(): { reports: number; bytes: number } {
    return { reports: this.entries.size, bytes: this.bytes };
  }

  private drop(key: string, entry: Entry): void {
    this.entries.delete(key);
    this.bytes -= entry.bytes;
  }

  private evict(): void {
    for (const [key, entry] of this.entries) {
      if (this.bytes <= this.maxBytes || this.entries.size <= 1) break;
      this.drop(key, entry);
    }
  }
}

function cachedAnswer(json: Buffer, etag: string): CachedAnswer {
  let gzipped: Buffer | undefined;
  return {
    json,
    etag,
    gzip: () => (gzipped ??= gzipSync(json, { level: 6 })),
  };
}

/** Filtered answers a process keeps (`GET /business_reports/by_secret_filtered`). */
export const FILTERED_ANSWERS_KEPT = 64;

/**
 * The serialised answers of `GET /business_reports/by_secret_filtered`: one per report,
 * currency and filter item, valid while the report's stamp (ReportStamp) is the database's, so
 * a repeated filter costs no computation. At most `maxEntries` answers, the least recently used
 * leaving first.
 */
export class FilteredAnswerCache {
  private readonly entries = new Map<string, { stamp: string; answer: CachedAnswer }>();
  private readonly building = new Map<string, Promise<CachedAnswer>>();
  /** Answers built (computed) so far: what a test counts. */
  builds = 0;

  constructor(private readonly maxEntries = FILTERED_ANSWERS_KEPT) {}

  /** The answer of `key` for this report's stamp; `build` makes it when there is none for that stamp. */
  async answer(report: ReportStamp, key: string, build: () => Promise<string>): Promise<CachedAnswer> {
    const full = `${report.account_id}/${report.id}\u0000${key}`;
    const found = this.entries.get(full);
    if (found && found.stamp === report.stamp) {
      this.entries.delete(full);
      this.entries.set(full, found);
      return found.answer;
    }
    // The same request in flight: wait for it instead of computing twice.
    const buildKey = `${full}\u0000${report.stamp}`;
    const pending = this.building.get(buildKey);
    if (pending) return pending;
    const run = (async () => {
      this.builds += 1;
      const json = Buffer.from(await build());
      return cachedAnswer(json, `"${createHash('sha1').update(json).digest('base64url')}"`);
    })();
    this.building.set(buildKey, run);
    try {
      const answer = await run;
      this.entries.delete(full);
      this.entries.set(full, { stamp: report.stamp, answer });
      while (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value as string);
      return answer;
    } finally {
      this.building.delete(buildKey);
    }
  }

  /** Answers held. */
  get size(): number {
    return this.entries.size;
  }
}
