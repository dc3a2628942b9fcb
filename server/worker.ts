import closeWithGrace from 'close-with-grace';
import { bootStorage } from './boot';
import { loadConfig } from './config';
import { startQueue } from './jobs/queue';
import { registerWorkers } from './jobs/workers';

/**
 * `npm run worker`: job workers without HTTP, for scaling out. Run as many as needed
 * against one PostgreSQL (DATABASE_URL); embedded PGlite serves a single process only.
 */
const config = loadConfig();
const say = (line: string) => process.stdout.write(`[subscope worker] ${line}\n`);
if (!config.databaseUrl) {
  say('Embedded PGlite serves one process: `npm start` already runs the workers. Set DATABASE_URL to run separate workers.');
  process.exit(1);
}
const { db } = await bootStorage({ ...config, seedDemo: false }, { info: say });
const queue = await startQueue(db);
await registerWorkers(queue, db, { ecbFeedUrl: config.ecbFeedUrl, integrationSecretsKey: config.integrationSecretsKey, providerUrls: config.providerUrls, oauthClients: config.oauthClients }, { info: say, warn: say, error: say });
say('Workers started; waiting for jobs.');

closeWithGrace({ delay: 25_000 }, async ({ signal, err }) => {
  if (err) say(`shutting down after an error: ${String(err)}`);
  else say(`${signal ?? 'stop'} received: finishing running jobs…`);
  await queue.stop();
  await db.close();
  say('Stopped cleanly.');
});
