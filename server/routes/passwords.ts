import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { isEmailAddress, newPasswordStruct } from '../../models/auth';
import { normalizeEmail } from '../auth/email';
import { ACCESS_TOKEN_TTL_SECONDS, RESET_TOKEN_TTL_MS } from '../auth/lifetimes';
import { hashPassword } from '../auth/password';
import { PASSWORD_MESSAGES, weakPasswordProblem } from '../auth/passwordPolicy';
import { Problems } from '../auth/problems';
import { errorResponses, signedIn, UserEnvelopeSchema } from '../auth/schemas';
import { hashToken, newId, newSecretToken } from '../auth/secrets';
import { startSession } from '../auth/session';
import { clearSignInFailures } from '../auth/throttle';
import { toApiUser } from '../auth/userRecords';
import { ApiError } from '../http/errors';
import { fieldWording, structDetails } from '../http/structBody';
import { appLink } from '../mail/links';
import { passwordResetEmail } from '../mail/templates';
import { passwordResetsRepository, usableResetToken } from '../repositories/passwordResets';
import { userByEmail, usersRepository } from '../repositories/users';

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
      // Any address, even one the form's text@text rule keeps from being sent, gets the same answer,
      // so the answer never tells which addresses have an account; only a proper one is looked up.
      const email = normalizeEmail(request.body.user.email);
      const user = isEmailAddress(email) ? await userByEmail(db, email) : undefined;
      // Invitees whose invitation is pending have no password to reset: their way in is the invitation.
      if (user && user.password_hash !== null) {
        const now = app.now();
        const token = newSecretToken();
        await passwordResetsRepository(db, user.account_id).create({
          id: newId('prt'),
          userId: user.id,
          tokenHash: hashToken(token),
          expiresAt: new Date(now.getTime() + RESET_TOKEN_TTL_MS),
          now,
        });
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
      const reset = token ? await usableResetToken(db, hashToken(token), now) : undefined;
      // The reset form's struct (blank, the length bounds), in the API's words. The API refuses any
      // confirmation that differs from the password, a missing one included.
      const refused = structDetails(newPasswordStruct, { password: password ?? '', password_confirmation: confirmation ?? '' }, fieldWording);
      const problems = new Problems();
      if (!reset) problems.add('/user/reset_password_token', RESET_TOKEN_INVALID);
      problems.add('/user/password', refused.password ?? weakPasswordProblem(password ?? '', { email: reset?.email }));
      if (confirmation !== password) problems.add('/user/password_confirmation', PASSWORD_MESSAGES.confirmation);
      if (!problems.empty || !reset || password === undefined) throw problems.error();

      const passwordHash = await hashPassword(password);
      // Single use, even when two requests race; signs the user out everywhere else.
      const changed = await passwordResetsRepository(db, reset.account_id).resetPassword({
        resetId: reset.id,
        userId: reset.user_id,
        passwordHash,
        now,
        longestTtlSeconds: Math.max(ACCESS_TOKEN_TTL_SECONDS, app.config.jwtTtlSeconds ?? 0),
      });
      if (!changed) throw ApiError.of(422, RESET_TOKEN_INVALID, '/user/reset_password_token');

      // Proving control of the mailbox clears the e-mail's failed sign-ins, from every address.
      await clearSignInFailures(db, { emailKey: reset.email.toLowerCase(), ip: request.ip, now });
      const user = await usersRepository(db, reset.account_id).find(reset.user_id);
      if (!user) throw new Error('the user of a reset token was not found');
      await startSession(request, reply, user);
      return { user: toApiUser(user) };
    },
  );
};
