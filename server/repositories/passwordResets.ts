import type { Kysely } from 'kysely';
import { revokeTokensIssuedBefore } from '../auth/tokens';
import type { DB } from '../db/schema';

/**
 * Password-reset tokens of one account's users, scoped by the account given once. The token of a
 * reset link names no account, so finding it (`usableResetToken`) is the one look-up across accounts.
 */
export function passwordResetsRepository(db: Kysely<DB>, accountId: string) {
  return {
    async create(input: { id: string; userId: string; tokenHash: string; expiresAt: Date; now: Date }): Promise<void> {
      await db
        .insertInto('password_reset_tokens')
        .values({ account_id: accountId, id: input.id, user_id: input.userId, token_hash: input.tokenHash, expires_at: input.expiresAt, created_at: input.now })
        .execute();
    },

    /**
     * Uses the token up, with every other unused token of its user, sets the new password and
     * revokes the user's earlier sign-in tokens, in one transaction. False when the token was used
     * meanwhile: when two requests race, only one update finds it unused.
     */
    async resetPassword(input: { resetId: string; userId: string; passwordHash: string; now: Date; longestTtlSeconds: number }): Promise<boolean> {
      const { resetId, userId, now } = input;
      return db.transaction().execute(async (trx) => {
        const used = await trx
          .updateTable('password_reset_tokens')
          .set({ used_at: now })
          .where('account_id', '=', accountId)
          .where('id', '=', resetId)
          .where('used_at', 'is', null)
          .returning('id')
          .executeTakeFirst();
        if (!used) return false;
        await trx
          .updateTable('password_reset_tokens')
          .set({ used_at: now })
          .where('account_id', '=', accountId)
          .where('user_id', '=', userId)
          .where('used_at', 'is', null)
          .execute();
        await trx.updateTable('users').set({ password_hash: input.passwordHash, updated_at: now }).where('account_id', '=', accountId).where('id', '=', userId).execute();
        // Whoever signed in with the old password is signed out, on every instance and on /cable.
        await revokeTokensIssuedBefore(trx, { accountId, userId }, now, input.longestTtlSeconds);
        return true;
      });
    },
  };
}

/** The unused, unexpired reset token of this hash whose user has a password (not a pending invitee), in any account. */
export function usableResetToken(db: Kysely<DB>, tokenHash: string, now: Date) {
  return db
    .selectFrom('password_reset_tokens')
    .innerJoin('users', (join) => join.onRef('users.account_id', '=', 'password_reset_tokens.account_id').onRef('users.id', '=', 'password_reset_tokens.user_id'))
    .select(['password_reset_tokens.account_id', 'password_reset_tokens.id', 'password_reset_tokens.user_id', 'users.email'])
    .where('password_reset_tokens.token_hash', '=', tokenHash)
    .where('password_reset_tokens.used_at', 'is', null)
    .where('password_reset_tokens.expires_at', '>', now)
    .where('users.password_hash', 'is not', null)
    .executeTakeFirst();
}
