import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { sql } from 'kysely';
import { normalizeEmail } from '../auth/email';
import { authOf } from '../auth/plugin';
import { issueAccessToken } from '../auth/tokens';
import { findUserByEmail } from '../auth/userRecords';
import { ApiError } from '../http/errors';
import { makeSuccessor } from '../reports/schedules';

/**
 * Routes that exist only when the server runs with SUBSCOPE_TEST_ROUTES=true outside
 * production: e2e and process tests use them to make slow writes (graceful-shutdown checks)
 * and short-lived sign-in tokens (a token expiring mid-session), and to count what an import
 * left behind. They keep their own scratch table and never write tenant data.
 */
export const testSupportRoutes: FastifyPluginAsyncTypebox = async (app) => {
  // Several instances may start on one database at once (the scale-out test): 'create table if
  // not exists' alone races on PostgreSQL's catalogue ('type … already exists'), so the
  // instances take turns under a transaction-scoped advisory lock.
  await app.db.kysely.transaction().execute(async (trx) => {
    await sql`select pg_advisory_xact_lock(hashtext('subscope.test_support_writes'))`.execute(trx);
    await sql`create table if not exists test_support_writes (key text primary key, written_at timestamptz not null default now())`.execute(trx);
  });

  // Slow writes in flight, and the start of shutdown (Fastify's preClose: before the server
  // stops accepting connections), so a test can wait for these events instead of sleeping.
  const slowWritesInFlight = new Set<string>();
  let shutdownStarted!: () => void;
  const shuttingDown = new Promise<void>((resolve) => (shutdownStarted = resolve));
  app.addHook('preClose', async () => shutdownStarted());

  app.post(
    '/test/slow_write',
    {
      schema: {
        hide: true,
        body: Type.Object({
          key: Type.String({ minLength: 1, maxLength: 100 }),
          delay_ms: Type.Integer({ minimum: 0, maximum: 10_000 }),
          /** Wait for the server to start shutting down (SIGTERM) before the delay: in flight when it begins, whatever the timing. */
          until_shutdown: Type.Optional(Type.Boolean()),
        }),
      },
    },
    async (request) => {
      slowWritesInFlight.add(request.body.key);
      try {
        if (request.body.until_shutdown) await shuttingDown;
        await new Promise((resolve) => setTimeout(resolve, request.body.delay_ms));
        await sql`insert into test_support_writes (key) values (${request.body.key})`.execute(app.db.kysely);
        return { key: request.body.key };
      } finally {
        slowWritesInFlight.delete(request.body.key);
      }
    },
  );

  /**
   * Answers once no report recalculation runs in this process: a test that starts right after boot
   * (which resumes the demo reports' recalculation) waits here, so a shutdown it times waits for
   * its own requests only, not for that work (minutes on a starved machine).
   */
  app.get('/test/recalculations_settled', { schema: { hide: true } }, async () => {
    await app.reports.settled();
    return { settled: true };
  });

  /** The keys of the slow writes this process is running now. */
  app.get('/test/slow_writes_in_flight', { schema: { hide: true } }, async () => ({ keys: [...slowWritesInFlight].sort() }));

  /** The signed-in account's payments and imports, counted (the import crash test checks nothing is lost or doubled). */
  app.get('/test/payment_count', { onRequest: app.requireUser, schema: { hide: true } }, async (request) => {
    const { accountId } = authOf(request);
    const row = await app.db.kysely.selectFrom('payments').select((eb) => eb.fn.countAll<number>().as('n')).where('account_id', '=', accountId).executeTakeFirstOrThrow();
    return { count: Number(row.n) };
  });
  app.get('/test/imports', { onRequest: app.requireUser, schema: { hide: true } }, async (request) => {
    const { accountId } = authOf(request);
    const rows = await app.db.kysely.selectFrom('imports').select(['id', 'status']).where('account_id', '=', accountId).orderBy('created_at').execute();
    return { imports: rows };
  });

  app.get('/test/writes', { schema: { hide: true } }, async () => {
    const { rows } = await sql<{ key: string }>`select key from test_support_writes order by key`.execute(app.db.kysely);
    return { keys: rows.map((r) => r.key) };
  });

  /**
   * Next month's successor of one of the signed-in account's reports, as the monthly job makes it
   * (server/reports/schedules.ts) with the clock at `now`, then recalculated; 409 when the report
   * gets none at that time (not repeatable, already succeeded, range not behind `now`).
   */
  app.post(
    '/test/make_successor',
    {
      onRequest: app.requireUser,
      schema: {
        hide: true,
        body: Type.Object({ report_id: Type.String({ minLength: 1, maxLength: 64 }), now: Type.String({ minLength: 1, maxLength: 64 }) }),
      },
    },
    async (request, reply) => {
      const { accountId } = authOf(request);
      const now = new Date(request.body.now);
      if (Number.isNaN(now.getTime())) throw ApiError.of(422, 'now must be an ISO 8601 instant', '/now');
      const made = await makeSuccessor(app.db.kysely, accountId, request.body.report_id, now);
      if (!made) throw ApiError.of(409, 'This report gets no successor at that time');
      await app.reports.start(accountId, made.id);
      return reply.code(201).send({ id: made.id, secret: made.secret });
    },
  );

  /** A real sign-in token for a user that expires after `ttl_seconds` (tests of a token that runs out). */
  app.post(
    '/test/short_token',
    {
      schema: {
        hide: true,
        body: Type.Object({ email: Type.String({ maxLength: 1000 }), ttl_seconds: Type.Integer({ minimum: 1, maximum: 86_400 }) }),
      },
    },
    async (request) => {
      const user = await findUserByEmail(app.db.kysely, normalizeEmail(request.body.email));
      if (!user || user.password_hash === null) throw ApiError.of(404, 'No user with this e-mail');
      const { token } = await issueAccessToken({
        secret: app.config.jwtSecret,
        userId: user.id,
        accountId: user.account_id,
        now: app.now(),
        ttlSeconds: request.body.ttl_seconds,
      });
      return { token };
    },
  );
};
