import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { looksLikeEmail, normalizeEmail } from '../auth/email';
import { ACCESS_TOKEN_TTL_SECONDS, RESET_TOKEN_TTL_MS } from '../auth/lifetimes';
import { hashPassword } from '../auth/password';
import { PASSWORD_MESSAGES, passwordProblem } from '../auth/passwordPolicy';
import { Problems } from '../auth/problems';
import { errorResponses, signedIn, UserEnvelopeSchema } from '../auth/schemas';
import { hashToken, newId, newSecretToken } from '../auth/secrets';
import { startSession } from '../auth/session';
import { clearSignInFailures } from '../auth/throttle';
import { revokeTokensIssuedBefore } from '../auth/tokens';
import { findUser, findUserByEmail, toApiUser } from '../auth/userRecords';
import { ApiError } from '../http/errors';
import { appLink } from '../mail/links';
import { passwordResetEmail } from '../mail/templates';

export const RESET_REQUESTED_MESSAGE =
  'If your e-mail address is registered, you will receive a link to reset your password in a few minutes.';
export const RESET_TOKEN_INVALID = 'is invalid or has expired';

const RequestResetBody = Type.Object({ user: Type.Object({ email: Type.String({ maxLength: 1000 }) }) });

const ResetBody = Type.Object({
  user: Type.Object({
    password: Type.Optional(Type.String({ maxLength: 1024 })),
    password_confirmation: Type.Optional(Type.String({ maxLength: 1024 })),
    reset_password_token: Type.Optional(Type.String({ maxLength: 200 })),
  }),
});

/** Password reset: request a link by e-mail, then set a new password with the link's token. */
export const passwordRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const db = app.db.kysely;

  app.post(
    '/users/password',
    {
      schema: {
        tags: ['auth'],
        operationId: 'requestPasswordReset',
        summary: 'E-mail a password-reset link',
        description: 'The answer is the same whether or not the e-mail belongs to a user. The link is valid once, for 2 hours.',
        body: RequestResetBody,
        response: { 200: Type.Object({ message: Type.String() }), ...errorResponses(400) },
      },
    },
    async (request) => {
      const email = normalizeEmail(request.body.user.email);
      const user = looksLikeEmail(email) ? await findUserByEmail(db, email) : undefined;
      // Invitees whose invitation is pending have no password to reset: their way in is the invitation.
      if (user && user.password_hash !== null) {
        const now = app.now();
        const token = newSecretToken();
        await db
          .insertInto('password_reset_tokens')
          .values({
            account_id: user.account_id,
            id: newId('prt'),
            user_id: user.id,
            token_hash: hashToken(token),
            expires_at: new Date(now.getTime() + RESET_TOKEN_TTL_MS),
            created_at: now,
          })
          .execute();
        const content = passwordResetEmail({ link: appLink(request, `/reset_password/${token}`), name: user.name, email: user.email });
        try {
          await app.mailer.send({ ...content, to: user.email, accountId: user.account_id });
        } catch (error) {
          // The answer must not differ for a known e-mail, even when mail delivery fails.
          request.log.error({ err: error }, 'password reset e-mail could not be sent');
        }
      }
      return { message: RESET_REQUESTED_MESSAGE };
    },
  );

  app.put(
    '/users/password',
    {
      schema: {
        tags: ['auth'],
        operationId: 'resetPassword',
        summary: "Set a new password with a reset link's token, and sign in",
        description:
          'Uses the token up, and every other unused reset token of the user with it, and signs the user out everywhere else ' +
          '(every earlier sign-in token is revoked). An unknown, used or expired token is ' +
          "422 at /user/reset_password_token ('is invalid or has expired').",
        body: ResetBody,
        response: { 200: signedIn(UserEnvelopeSchema, 'Password changed and signed in'), ...errorResponses(400, 422) },
      },
    },
    async (request, reply) => {
      const { password, password_confirmation: confirmation, reset_password_token: token } = request.body.user;
      const now = app.now();
      const reset = token
        ? await db
            .selectFrom('password_reset_tokens')
            .innerJoin('users', (join) =>
              join.onRef('users.account_id', '=', 'password_reset_tokens.account_id').onRef('users.id', '=', 'password_reset_tokens.user_id'),
            )
            .select(['password_reset_tokens.account_id', 'password_reset_tokens.id', 'password_reset_tokens.user_id', 'users.email'])
            .where('password_reset_tokens.token_hash', '=', hashToken(token))
            .where('password_reset_tokens.used_at', 'is', null)
            .where('password_reset_tokens.expires_at', '>', now)
            .where('users.password_hash', 'is not', null)
            .executeTakeFirst()
        : undefined;
      const problems = new Problems();
      if (!reset) problems.add('/user/reset_password_token', RESET_TOKEN_INVALID);
      problems.add('/user/password', passwordProblem(password, { email: reset?.email }));
      if (confirmation !== password) problems.add('/user/password_confirmation', PASSWORD_MESSAGES.confirmation);
      if (!problems.empty || !reset || password === undefined) throw problems.error();

      const passwordHash = await hashPassword(password);
      const changed = await db.transaction().execute(async (trx) => {
        // Single use, even when two requests race: only one update finds the token unused.
        const used = await trx
          .updateTable('password_reset_tokens')
          .set({ used_at: now })
          .where('account_id', '=', reset.account_id)
          .where('id', '=', reset.id)
          .where('used_at', 'is', null)
          .returning('id')
          .executeTakeFirst();
        if (!used) return false;
        await trx
          .updateTable('password_reset_tokens')
          .set({ used_at: now })
          .where('account_id', '=', reset.account_id)
          .where('user_id', '=', reset.user_id)
          .where('used_at', 'is', null)
          .execute();
        await trx
          .updateTable('users')
          .set({ password_hash: passwordHash, updated_at: now })
          .where('account_id', '=', reset.account_id)
          .where('id', '=', reset.user_id)
          .execute();
        // Whoever signed in with the old password is signed out, on every instance and on /cable.
        const longestTtl = Math.max(ACCESS_TOKEN_TTL_SECONDS, app.config.jwtTtlSeconds ?? 0);
        await revokeTokensIssuedBefore(trx, { accountId: reset.account_id, userId: reset.user_id }, now, longestTtl);
        return true;
      });
      if (!changed) throw ApiError.of(422, RESET_TOKEN_INVALID, '/user/reset_password_token');

      // Proving control of the mailbox clears the e-mail's failed sign-ins, from every address.
      await clearSignInFailures(db, { emailKey: reset.email.toLowerCase(), ip: request.ip, now });
      const user = await findUser(db, reset.account_id, reset.user_id);
      if (!user) throw new Error('the user of a reset token was not found');
      await startSession(request, reply, user);
      return { user: toApiUser(user) };
    },
  );
};
