import type { FastifyReply, FastifyRequest } from 'fastify';
import { ACCESS_TOKEN_TTL_SECONDS } from './lifetimes';
import { issueAccessToken } from './tokens';

/**
 * Signs a user in on this answer: issues a token and puts it in the `Authorization: Bearer`
 * response header, where the client reads and stores it.
 */
export async function startSession(request: FastifyRequest, reply: FastifyReply, user: { id: string; account_id: string }): Promise<void> {
  const app = request.server;
  const now = app.now();
  const { token } = await issueAccessToken({
    secret: app.config.jwtSecret,
    userId: user.id,
    accountId: user.account_id,
    now,
    ttlSeconds: app.config.jwtTtlSeconds ?? ACCESS_TOKEN_TTL_SECONDS,
  });
  await app.db.kysely
    .updateTable('users')
    .set({ last_sign_in_at: now })
    .where('account_id', '=', user.account_id)
    .where('id', '=', user.id)
    .execute();
  reply.header('authorization', `Bearer ${token}`);
}
