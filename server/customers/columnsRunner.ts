import type { FastifyInstance } from 'fastify';
import fastifyPlugin from 'fastify-plugin';
import type { Kysely } from 'kysely';
import { publish } from '../cable/streams';
import type { Database } from '../db/database';
import type { DB } from '../db/schema';
import { dayFromIso } from '../metrics/days';
import type { MetricsService } from '../metrics/service';
import { dependsOnToday, recalculateColumn, storedVariables } from './columns';

declare module 'fastify' {
  interface FastifyInstance {
    /** Recalculation of calculated customer columns (server/customers/columnsRunner.ts). */
    customerColumns: CustomerColumnRecalculations;
  }
}

/** The live stream of an account's calculated columns (CustomerColumnsChannel). */
export function customerColumnsStream(accountId: string): string {
  return `customer_columns:${accountId}`;
}

/** What CustomerColumnsChannel sends when a column's recalculation starts and when it ends. */
export interface CustomerColumnEvent {
  object: 'customer_related_metric_definition';
  id: string;
  recalculation_status: 'in_progress' | 'finished';
}

export async function publishColumnState(db: Kysely<DB>, accountId: string, id: string, status: CustomerColumnEvent['recalculation_status']): Promise<void> {
  const message: CustomerColumnEvent = { object: 'customer_related_metric_definition', id, recalculation_status: status };
  await publish(db, { stream: customerColumnsStream(accountId), account_id: accountId, message });
}

/**
 * Recalculation of calculated columns, in the server process (it holds the account's metrics
 * snapshot), as ReportRecalculations does for reports: one run per definition at a time, and a
 * request during a run runs it once more after (the definition stays 'in_progress' until the
 * last run ends). The state is the definition's `recalculation_status`, so one left
 * 'in_progress' by a stopped process is run again at start (`resume`). The start and the end
 * of each recalculation are published for CustomerColumnsChannel through PostgreSQL.
 */
export class CustomerColumnRecalculations {
  private readonly running = new Map<string, { run: Promise<void>; again: boolean }>();

  constructor(
    private readonly db: Database,
    private readonly metrics: MetricsService,
    private readonly now: () => Date,
    private readonly log: { error: (message: string) => void } = console,
  ) {}

  /** Marks the definition in_progress now (what readers see at once) and recomputes its values in the background. */
  async start(accountId: string, definitionId: string): Promise<void> {
    const marked = await this.db.kysely
      .updateTable('customer_column_definitions')
      .set({ recalculation_status: 'in_progress' })
      .where('account_id', '=', accountId)
      .where('id', '=', definitionId)
      .executeTakeFirst();
    if (Number(marked.numUpdatedRows) === 0) return;
    await publishColumnState(this.db.kysely, accountId, definitionId, 'in_progress');
    this.schedule(accountId, definitionId);
  }

  /**
   * Recalculates every finished definition of the account whose values are stale: computed
   * from another `accounts.data_version` (the data changed since), or on an earlier day when
   * they hold today's MRR. A no-op (one query) otherwise. Answers the ids started.
   */
  async refreshIfStale(accountId: string): Promise<string[]> {
    const rows = await this.db.kysely
      .selectFrom('customer_column_definitions as d')
      .innerJoin('accounts as a', 'a.id', 'd.account_id')
      .select(['d.id', 'd.variables', 'd.recalculation_status', 'd.computed_data_version', 'd.computed_on', 'a.data_version'])
      .where('d.account_id', '=', accountId)
      .execute();
    const todayIso = this.now().toISOString().slice(0, 10);
    const today = dayFromIso(todayIso);
    const stale = rows.filter((row) => {
      if (row.recalculation_status !== 'finished' || this.running.has(key(accountId, row.id))) return false;
      if (row.computed_data_version === null || Number(row.computed_data_version) !== Number(row.data_version)) return true;
      return row.computed_on !== todayIso && dependsOnToday(storedVariables(row.variables), today);
    });
    for (const row of stale) await this.start(accountId, row.id);
    return stale.map((row) => row.id);
  }

  /** Runs again every definition left in_progress (by a stopped process); answers their ids. */
  async resume(): Promise<string[]> {
    const left = await this.db.kysely.selectFrom('customer_column_definitions').select(['account_id', 'id']).where('recalculation_status', '=', 'in_progress').execute();
    for (const row of left) this.schedule(row.account_id, row.id);
    return left.map((row) => row.id);
  }

  /** Whether the definition's recalculation runs in this process. */
  isRunning(accountId: string, definitionId: string): boolean {
    return this.running.has(key(accountId, definitionId));
  }

  /** Resolves when no recalculation runs (tests, shutdown). */
  async settled(): Promise<void> {
    while (this.running.size > 0) await Promise.all([...this.running.values()].map((entry) => entry.run));
  }

  private schedule(accountId: string, definitionId: string): void {
    const id = key(accountId, definitionId);
    const current = this.running.get(id);
    if (current) {
      current.again = true;
      return;
    }
    const entry = { run: Promise.resolve(), again: true };
    entry.run = (async () => {
      while (entry.again) {
        entry.again = false;
        await this.runOnce(accountId, definitionId, () => entry.again);
      }
    })().finally(() => this.running.delete(id));
    this.running.set(id, entry);
  }

  private async runOnce(accountId: string, definitionId: string, again: () => boolean): Promise<void> {
    let found: boolean;
    try {
      // Another request during the run: readers keep seeing 'in_progress' until that run ends.
      found = await recalculateColumn(this.db, this.metrics, accountId, definitionId, this.now(), { keepInProgress: again });
      if (again()) return;
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      this.log.error(`recalculation of customer column ${definitionId} failed: ${message}`);
      // Its values stay those of the last run; the next data change or refresh tries again.
      const updated = await this.db.kysely
        .updateTable('customer_column_definitions')
        .set({ recalculation_status: 'finished' })
        .where('account_id', '=', accountId)
        .where('id', '=', definitionId)
        .executeTakeFirst()
        .catch(() => null);
      found = updated !== null && Number(updated.numUpdatedRows) > 0;
      if (again()) return;
    }
    if (!found) return;
    await publishColumnState(this.db.kysely, accountId, definitionId, 'finished').catch((error: unknown) => this.log.error(`customer column ${definitionId}: could not publish its state: ${String(error)}`));
  }
}

const key = (accountId: string, definitionId: string) => `${accountId}/${definitionId}`;

export interface CustomerColumnsPluginOptions {
  /** The root instance, decorated with `customerColumns` (tests and server/main.ts reach it there). */
  root: FastifyInstance;
}

/**
 * Registers the runner inside the API scope (it computes with the scope's metrics service and
 * clock) and decorates the root with it as `app.customerColumns`. Runs end before the
 * metrics service closes. Definitions left 'in_progress' by a stopped process are run again by
 * `app.customerColumns.resume()`, which server/main.ts calls at start as it does for reports.
 */
export const customerColumnsPlugin = fastifyPlugin<CustomerColumnsPluginOptions>(
  async (app, options) => {
    const runner = new CustomerColumnRecalculations(app.db, app.metrics, () => app.now(), { error: (message) => app.log.error(message) });
    options.root.decorate('customerColumns', runner);
    app.addHook('onClose', async () => {
      await runner.settled();
    });
  },
  { name: 'subscope-customer-columns', fastify: '5.x', dependencies: ['subscope-metrics'] },
);
