import type { Kysely } from 'kysely';
import { newApiToken } from '../auth/secrets';
import { findUser, findUserByEmail, listAccountUsers, type UserRecord } from '../auth/userRecords';
import type { DB, PermissionLevel } from '../db/schema';

/**
 * The users of one account: every read and write of `users` and `invitations` a route makes,
 * scoped by the account given once. Sign-up (which creates the account) and the look-up by
 * e-mail (which is unique across accounts) are the two functions below that take no account.
 */
export function usersRepository(db: Kysely<DB>, accountId: string) {
  return {
    find(userId: string): Promise<UserRecord | undefined> {
      return findUser(db, accountId, userId);
    },

    list(): Promise<UserRecord[]> {
      return listAccountUsers(db, accountId);
    },

    async accountName(): Promise<string | undefined> {
      const account = await db.selectFrom('accounts').select('name').where('id', '=', accountId).executeTakeFirst();
      return account?.name;
    },

    async updateProfile(userId: string, patch: { name?: string; currency?: string; customer_columns?: readonly unknown[] }, now: Date): Promise<void> {
      await db
        .updateTable('users')
        .set({
          ...(patch.name !== undefined ? { name: patch.name } : {}),
          ...(patch.currency !== undefined ? { currency: patch.currency } : {}),
          ...(patch.customer_columns !== undefined ? { customer_columns: JSON.stringify(patch.customer_columns) } : {}),
          updated_at: now,
        })
        .where('account_id', '=', accountId)
        .where('id', '=', userId)
        .execute();
    },

    /**
     * Records an invitation: a new invitee, or (`existing`) a pending invitee renamed whose earlier
     * links stop working, since only the newest invitation is valid. One transaction.
     */
    async invite(input: {
      inviteeId: string;
      existing: boolean;
      email: string;
      name: string;
      permissionLevel: PermissionLevel;
      invitationId: string;
      tokenHash: string;
      inviterUserId: string;
      expiresAt: Date;
      now: Date;
    }): Promise<void> {
      const { inviteeId, email, name, now } = input;
      await db.transaction().execute(async (trx) => {
        if (input.existing) {
          await trx.updateTable('users').set({ name, updated_at: now }).where('account_id', '=', accountId).where('id', '=', inviteeId).execute();
          await trx
            .updateTable('invitations')
            .set({ expires_at: now })
            .where('account_id', '=', accountId)
            .where('user_id', '=', inviteeId)
            .where('accepted_at', 'is', null)
            .execute();
        } else {
          await trx
            .insertInto('users')
            .values({ account_id: accountId, id: inviteeId, email, name, password_hash: null, permission_level: input.permissionLevel, api_token: newApiToken() })
            .execute();
        }
        await trx
          .insertInto('invitations')
          .values({
            account_id: accountId,
            id: input.invitationId,
            token_hash: input.tokenHash,
            email,
            name,
            permission_level: input.permissionLevel,
            inviter_user_id: input.inviterUserId,
            user_id: inviteeId,
            expires_at: input.expiresAt,
            created_at: now,
          })
          .execute();
      });
    },
  };
}

export type UsersRepository = ReturnType<typeof usersRepository>;

/** The user of this (normalized) e-mail in any account: e-mails are unique across accounts. */
export function userByEmail(db: Kysely<DB>, email: string): Promise<UserRecord | undefined> {
  return findUserByEmail(db, email);
}

/** Sign-up: a new account and its owner, in one transaction (a taken e-mail fails on the unique index). */
export async function createAccountWithOwner(
  db: Kysely<DB>,
  input: { accountId: string; accountName: string; userId: string; email: string; name: string; passwordHash: string; marketingRef: string | null },
): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx.insertInto('accounts').values({ id: input.accountId, name: input.accountName, currency: 'USD' }).execute();
    await trx
      .insertInto('users')
      .values({
        account_id: input.accountId,
        id: input.userId,
        email: input.email,
        name: input.name,
        password_hash: input.passwordHash,
        permission_level: 'user',
        api_token: newApiToken(),
        marketing_ref: input.marketingRef,
      })
      .execute();
  });
}

/** Whether the product knows this ISO 4217 code (the currencies table is shared by all accounts). */
export async function isKnownCurrency(db: Kysely<DB>, iso: string): Promise<boolean> {
  return (await db.selectFrom('currencies').select('iso').where('iso', '=', iso).executeTakeFirst()) !== undefined;
}
