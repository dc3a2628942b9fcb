import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../server/app';
import type { Database } from '../../server/db/database';

/** A peer case of an HTTP list benchmark: the ids the plain indexed SELECT of the same page answers. */
export interface PeerCase {
  name: string;
  peer: () => Promise<string[]>;
}

export interface BenchApp {
  app: FastifyInstance;
  /** Registers the peer cases GET /bench/peer/{name} answers (filled in once they are known). */
  setPeerCases(cases: readonly PeerCase[]): void;
  /** The ids the peer route answers for a case, through the same server and request path as ours. */
  peerOnce(name: string): Promise<string[]>;
  /** An Authorization header of a full user of the account: signed up (a new account), moved into it, signed in again. */
  signIn(accountId: string, email: string): Promise<string>;
}

/**
 * The product's app on a benchmark's database, with the HTTP peer of the list benchmarks: the
 * same server and request path (routing, JSON answer) whose handler is nothing but the plain
 * indexed SELECT of the same page. It checks no token, which favours the peer.
 */
export async function benchApp(db: Database, now: Date): Promise<BenchApp> {
  const app = await buildApp({ db, config: { production: false, jwtSecret: 'bench-secret-that-is-long-enough-to-sign-jwts', testRoutes: false, devOutbox: false }, now: () => now, logger: false });
  const cases = new Map<string, PeerCase>();
  app.get('/bench/peer/:name', { schema: { hide: true } }, async (request) => {
    const found = cases.get((request.params as { name: string }).name);
    return { items: found ? (await found.peer()).map((id) => ({ id })) : [] };
  });
  await app.ready();
  return {
    app,
    setPeerCases: (list) => {
      for (const each of list) cases.set(each.name, each);
    },
    peerOnce: async (name) => (JSON.parse((await app.inject({ method: 'GET', url: `/bench/peer/${name}` })).body) as { items: { id: string }[] }).items.map((item) => item.id),
    signIn: async (accountId, email) => {
      const password = randomBytes(18).toString('base64url');
      const up = await app.inject({ method: 'POST', url: '/api/v11/users', payload: { user: { email, password, name: 'Bench' } } });
      if (up.statusCode !== 201) throw new Error(`sign-up: ${up.statusCode} ${up.body}`);
      await db.kysely.updateTable('users').set({ account_id: accountId }).where('email', '=', email).execute();
      const signIn = await app.inject({ method: 'POST', url: '/api/v11/users/sign_in', payload: { user: { email, password } } });
      if (signIn.statusCode !== 200) throw new Error(`sign-in: ${signIn.statusCode} ${signIn.body}`);
      return String(signIn.headers.authorization);
    },
  };
}
