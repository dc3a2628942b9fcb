import type { Config } from './config';
import { openDatabase, type Database } from './db/database';
import { migrateToLatest } from './db/migrate';
import { hasAnyAccount, seedDemoAccount } from './demo/seed';
import { loadEcbHistoryIfEmpty } from './rates/ecbHistory';
import { applyDemoPassword, chooseDemoPassword, type DemoPassword } from './demo/password';

export interface Booted {
  db: Database;
  seeded: boolean;
  /** The demo account's password for this start; undefined without a demo account. */
  demo?: DemoPassword;
}

/** Opens storage and brings it up to date: migrations, the shipped rate table, the demo account. */
export async function bootStorage(config: Config, log: { info: (message: string) => void }): Promise<Booted> {
  const db = await openDatabase(
    config.databaseUrl ? { kind: 'postgresql', url: config.databaseUrl } : { kind: 'pglite', dataDir: config.dataDir },
  );
  try {
    const migrations = await migrateToLatest(db.kysely);
    const applied = migrations.results?.filter((r) => r.status === 'Success').map((r) => r.migrationName) ?? [];
    if (applied.length > 0) log.info(`Applied migrations: ${applied.join(', ')}`);
    const rates = await loadEcbHistoryIfEmpty(db);
    if (rates > 0) log.info(`Loaded ${rates} ECB exchange rates`);
    let seeded = false;
    const demo = config.seedDemo ? chooseDemoPassword({ host: config.host, configured: config.demoPassword }) : undefined;
    if (demo && !(await hasAnyAccount(db.kysely))) {
      const started = Date.now();
      const result = await seedDemoAccount(db.kysely, { email: config.demoEmail, password: demo.password, now: new Date() });
      seeded = true;
      // Planner statistics for the fresh tables (PGlite has no autovacuum to gather them).
      await db.executeSql('analyze');
      log.info(
        `Seeded the demo account: ${result.counts.customers} customers, ${result.counts.payments} payments, ` +
          `${result.counts.costs} costs in ${((Date.now() - started) / 1000).toFixed(1)} s`,
      );
    }
    // Every start sets the password it chose (a generated one replaces the last start's).
    const hasDemo = demo ? seeded || (await applyDemoPassword(db.kysely, config.demoEmail, demo.password)) : false;
    return { db, seeded, ...(hasDemo ? { demo } : {}) };
  } catch (error) {
    await db.close();
    throw error;
  }
}
