import { Migrator, type Kysely, type Migration, type MigrationProvider, type MigrationResultSet } from 'kysely';
import * as initial from './migrations/0001_initial';
import * as auth from './migrations/0002_auth';
import * as metricsRead from './migrations/0003_metrics_read';
import * as snapshotStore from './migrations/0004_snapshot_store';
import * as imports from './migrations/0005_imports';
import * as importFiles from './migrations/0006_import_files';
import * as bumpOnce from './migrations/0007_bump_once';
import * as bulkImportWrites from './migrations/0008_bulk_import_writes';
import * as reportFreshness from './migrations/0009_report_freshness';
import * as reportRevision from './migrations/0010_report_revision';
import * as reportSuccessors from './migrations/0011_report_successors';
import * as customerPaging from './migrations/0012_customer_paging';
import * as customerColumns from './migrations/0013_customer_columns';
import * as accountPlans from './migrations/0014_account_plans';
import * as paymentPeriods from './migrations/0015_payment_periods';
import * as discountMonths from './migrations/0016_discount_months';
import * as paymentListing from './migrations/0017_payment_listing';
import * as foreignClientIds from './migrations/0018_foreign_client_ids';
import * as integrationSync from './migrations/0019_integration_sync';
import * as syncCustomerWrites from './migrations/0020_sync_customer_writes';
import * as customerWriteIndexes from './migrations/0021_customer_write_indexes';
import type { DB } from './schema';

/**
 * Forward-only, versioned migrations, listed here in order. Kysely's migrator runs each in a
 * transaction and takes a PostgreSQL advisory lock first, so two processes starting at once
 * against one server do not both migrate; the second waits and then finds nothing to do.
 */
const migrations: Record<string, Migration> = {
  '0001_initial': initial,
  '0002_auth': auth,
  '0003_metrics_read': metricsRead,
  '0004_snapshot_store': snapshotStore,
  '0005_imports': imports,
  '0006_import_files': importFiles,
  '0007_bump_once': bumpOnce,
  '0008_bulk_import_writes': bulkImportWrites,
  '0009_report_freshness': reportFreshness,
  '0010_report_revision': reportRevision,
  '0011_report_successors': reportSuccessors,
  '0012_customer_paging': customerPaging,
  '0013_customer_columns': customerColumns,
  '0014_account_plans': accountPlans,
  '0015_payment_periods': paymentPeriods,
  '0016_discount_months': discountMonths,
  '0017_payment_listing': paymentListing,
  '0018_foreign_client_ids': foreignClientIds,
  '0019_integration_sync': integrationSync,
  '0020_sync_customer_writes': syncCustomerWrites,
  '0021_customer_write_indexes': customerWriteIndexes,
};

const provider: MigrationProvider = { getMigrations: async () => migrations };

export async function migrateToLatest(db: Kysely<DB>): Promise<MigrationResultSet> {
  const migrator = new Migrator({
    db,
    provider,
    migrationTableName: 'schema_migrations',
    migrationLockTableName: 'schema_migrations_lock',
  });
  const result = await migrator.migrateToLatest();
  if (result.error) {
    const failed = result.results?.find((r) => r.status === 'Error')?.migrationName ?? 'unknown';
    throw new Error(`Migration ${failed} failed: ${String(result.error instanceof Error ? result.error.message : result.error)}`, {
      cause: result.error,
    });
  }
  return result;
}

export const migrationNames = Object.keys(migrations);
