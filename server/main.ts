import closeWithGrace from 'close-with-grace';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildApp } from './app';
import { bootStorage } from './boot';
import { ensureSpaBuild } from './build/ensureSpaBuild';
import { loadConfig } from './config';
import { startQueue } from './jobs/queue';
import { registerWorkers } from './jobs/workers';
import { API_PREFIX } from './version';

/**
 * `npm start`: one process serving the API, the docs, the SPA and the job workers.
 * SIGTERM/SIGINT stop accepting connections, let in-flight requests and jobs finish, then
 * close the database, so no acknowledged write is lost.
 */
const root = path.resolve(fileURLToPath(new URL('..', import.meta.url)));
const config = loadConfig();
const say = (line: string) => process.stdout.write(`[subscope] ${line}\n`);

const spaDir = process.env.SKIP_SPA_BUILD === 'true' ? path.join(root, 'dist') : ensureSpaBuild(root, say);
const { db, seeded, demo } = await bootStorage(config, { info: say });
// WORKERS=false on PostgreSQL (an API instance beside `npm run worker`): jobs (imports, exports)
// still go to the queue, where the workers take them; the job workers (jobs/workers.ts) and
// pg-boss's maintenance and crons are not run here (before, such an instance ran its imports and
// exports in its own memory, outside the queue). On PGlite nothing else could take them: they run here.
const queue = config.workers ? await startQueue(db) : db.kind === 'postgresql' ? await startQueue(db, { supervise: false }) : undefined;
const app = await buildApp({
  db,
  config,
  spaDir,
  queue,
  logger: { level: config.logLevel, redact: ['req.headers.authorization'] },
});
if (queue && config.workers) await registerWorkers(queue, db, { ecbFeedUrl: config.ecbFeedUrl, integrationSecretsKey: config.integrationSecretsKey, providerUrls: config.providerUrls, oauthClients: config.oauthClients }, app.log);
{
  const resumed = await app.imports.resume();
  if (resumed.length > 0) say(`Imports left in progress: ${resumed.join(', ')}; resuming those no other process runs`);
  const recalculating = await app.reports.resume();
  if (recalculating.length > 0) say(`Reports left recalculating: ${recalculating.join(', ')}; recalculating them again`);
  const columns = await app.customerColumns.resume();
  if (columns.length > 0) say(`Calculated columns left in progress: ${columns.join(', ')}; calculating them again`);
}

closeWithGrace({ delay: 25_000 }, async ({ signal, err }) => {
  if (err) app.log.error({ err }, 'shutting down after an error');
  else say(`${signal ?? 'stop'} received: finishing in-flight work…`);
  // Each step says when it is done, so a shutdown that overruns its grace period shows which one hung.
  const started = Date.now();
  const step = (name: string) => say(`${name} (${Date.now() - started} ms)`);
  await app.close();
  step('Requests and connections closed');
  if (queue) {
    await queue.stop();
    step('Job queue stopped');
  }
  await db.close();
  step('Database closed');
  say('Stopped cleanly.');
});

const address = await app.listen({ port: config.port, host: config.host });
const port = new URL(address).port;
const url = `http://localhost:${port}`;
// The demo account's first report, for anyone at /demo/{secret} (GET /demo).
const demoReport = await db.kysely
  .selectFrom('business_reports as r')
  .innerJoin('accounts as a', 'a.id', 'r.account_id')
  .select('r.secret')
  .where('a.is_demo', '=', true)
  .orderBy('r.created_at')
  .orderBy('r.id')
  .executeTakeFirst();
// One write, so whoever reads the log sees the whole banner at once.
const banner = [
  `Subscope is running at ${url}  (storage: ${db.kind === 'pglite' ? `embedded PGlite in ${config.dataDir}` : 'PostgreSQL'})`,
  `API: ${url}${API_PREFIX}  docs: ${url}${API_PREFIX}/docs`,
  ...(demo
    ? [
        `Demo sign-in: ${config.demoEmail} / ${demo.password}${seeded ? '  (demo data just created)' : ''}` +
          (demo.generated ? '  (generated for this start: this server is reachable from other machines)' : ''),
      ]
    : []),
  ...(demoReport ? [`Public demo report: ${url}/demo/${demoReport.secret}`] : []),
];
process.stdout.write(banner.map((line) => `[subscope] ${line}\n`).join(''));

