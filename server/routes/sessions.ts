import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { is } from 'superstruct';
import { SIGN_IN_FAILURE_MESSAGE, signInStruct } from '../../models/auth';
import { normalizeEmail } from '../auth/email';
import { verifyPasswordOrDummy } from '../auth/password';
import { authOf } from '../auth/plugin';
import { BEARER, errorResponses, signedIn, UserEnvelopeSchema } from '../auth/schemas';
import { startSession } from '../auth/session';
import { beginSignInAttempt, tooManyAttemptsMessage } from '../auth/throttle';
import { revokeAccessToken } from '../auth/tokens';
import { findUserByEmail, toApiUser } from '../auth/userRecords';
import { ApiError } from '../http/errors';

const SignInBody = Type.Object({
  user: Type.Object({
    email: Type.String({ maxLength: 1000 }),
    password: Type.String({ maxLength: 1024 }),
  }),
});

/** Sign-in with e-mail and password (throttled), and sign-out (revokes the token everywhere). */
export const sessionRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const db = app.db.kysely;

  app.post(
    '/users/sign_in',
    {
      schema: {
        tags: ['auth'],
        operationId: 'signIn',
        summary: 'Sign in with e-mail and password',
        description:
          'Answers the user and the token in the Authorization header. A wrong e-mail and a wrong password get the same 401. ' +
          'After 10 failures for one e-mail from one client address, or 50 from one address, within 15 minutes the answer is 429 ' +
          'with Retry-After (the client address is the connecting one, or what the proxies named by TRUST_PROXY say it is).',
        body: SignInBody,
        response: { 200: signedIn(UserEnvelopeSchema, 'Signed in'), ...errorResponses(400, 401, 429) },
      },
    },
    async (request, reply) => {
      const emailKey = normalizeEmail(request.body.user.email);
      // Recorded (as a failure) before the password is judged, so parallel guesses cannot outrun the count.
      const attempt = await beginSignInAttempt(db, { emailKey, ip: request.ip, now: app.now() });
      if (!attempt.judged) {
        reply.header('retry-after', String(attempt.retryAfterSeconds));
        throw ApiError.of(429, tooManyAttemptsMessage(attempt.retryAfterSeconds), undefined, 'too_many_attempts');
      }
      // The sign-in form's struct (both fields present); whatever is wrong, the answer is the one 401.
      const { email, password } = request.body.user;
      const user = is({ email, password }, signInStruct) ? await findUserByEmail(db, emailKey) : undefined;
      const valid = await verifyPasswordOrDummy(request.body.user.password, user?.password_hash);
      if (!user || !valid) throw ApiError.of(401, SIGN_IN_FAILURE_MESSAGE, '/user/email');
      await attempt.succeeded();
      await startSession(request, reply, user);
      return { user: toApiUser(user) };
    },
  );

  app.delete(
    '/users/sign_out',
    {
      onRequest: app.requireUser,
      schema: {
        tags: ['auth'],
        operationId: 'signOut',
        summary: 'Sign out: revoke the token of this request',
        description: 'The token is refused from now on by every instance; live connections (/cable) that use it are closed within seconds.',
        security: BEARER,
        response: { 204: Type.Null({ description: 'Signed out; the token is refused from now on' }), ...errorResponses(401) },
      },
    },
    async (request, reply) => {
      await revokeAccessToken(db, authOf(request), app.now());
      return reply.status(204).send(null);
    },
  );
};
