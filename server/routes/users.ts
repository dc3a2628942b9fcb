import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { inviteUserStruct, signUpStruct } from '../../models/auth';
import { normalizeEmail } from '../auth/email';
import { INVITATION_TTL_MS } from '../auth/lifetimes';
import { hashPassword } from '../auth/password';
import { PASSWORD_MESSAGES, weakPasswordProblem } from '../auth/passwordPolicy';
import { authOf, NOT_ALLOWED, SIGN_IN_REQUIRED } from '../auth/plugin';
import { NAME_MAX_LENGTH, NAME_TOO_LONG, Problems } from '../auth/problems';
import { BEARER, errorResponses, MeEnvelopeSchema, signedIn, UserEnvelopeSchema, UserSchema } from '../auth/schemas';
import { hashToken, newId, newSecretToken } from '../auth/secrets';
import { startSession } from '../auth/session';
import type { AuthContext } from '../auth/tokens';
import { isUniqueViolation, toApiUser, type UserRecord } from '../auth/userRecords';
import { choicesToStore, CustomerColumnChoiceSchema, customerColumnsOf } from '../customers/columnsList';
import { ApiError } from '../http/errors';
import { fieldWording, structDetails } from '../http/structBody';
import { appLink } from '../mail/links';
import { invitationEmail } from '../mail/templates';
import { createAccountWithOwner, isKnownCurrency, userByEmail, usersRepository } from '../repositories/users';

const TAKEN = 'has already been taken';
const CURRENCY_PATTERN = /^[A-Za-z]{3}$/;

const CreateUserBody = Type.Object(
  {
    user: Type.Optional(
      Type.Object(
        {
          email: Type.Optional(Type.String({ maxLength: 1000 })),
          password: Type.Optional(Type.String({ maxLength: 1024 })),
          password_confirmation: Type.Optional(Type.String({ maxLength: 1024, description: 'Checked against password when present' })),
          name: Type.Optional(Type.String({ maxLength: 1000 })),
          marketing_ref: Type.Optional(Type.String({ maxLength: 500, description: 'The `ref` of the sign-up link' })),
        },
        { description: 'Sign-up (no token): the new account owner' },
      ),
    ),
    email: Type.Optional(Type.String({ maxLength: 1000, description: "Invitation (with a token): the colleague's e-mail" })),
    name: Type.Optional(Type.String({ maxLength: 1000, description: "Invitation (with a token): the colleague's name" })),
  },
  { description: 'Without a token `{user: {...}}` signs up; with the token of a user-level user `{email, name}` invites a colleague.' },
);

const UpdateMeBody = Type.Object({
  name: Type.Optional(Type.String({ maxLength: 1000 })),
  currency: Type.Optional(Type.String({ maxLength: 10, description: 'ISO 4217 code' })),
  customer_columns: Type.Optional(Type.Array(CustomerColumnChoiceSchema, { maxItems: 500, description: 'The columns’ order and visibility, `[{id, visible}]`' })),
});

/** The account of a new owner is named after them, else after their e-mail's domain. */
function accountNameFor(name: string, email: string): string {
  return name || email.slice(email.lastIndexOf('@') + 1);
}

/** The signed-in user's own record; a token whose user vanished meanwhile is refused. */
async function currentUser(request: FastifyRequest): Promise<UserRecord> {
  const auth = authOf(request);
  const user = await usersRepository(request.server.db.kysely, auth.accountId).find(auth.userId);
  if (!user) throw ApiError.of(401, SIGN_IN_REQUIRED);
  return user;
}

/** Users: sign-up, invitations of colleagues, the account's user list, and the user's own profile. */
export const userRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const db = app.db.kysely;

  /** The signed-in user with the customers table's columns complete (calculated columns whose data changed are recomputed first). */
  async function me(request: FastifyRequest) {
    const record = await currentUser(request);
    if (record.permission_level === 'user') {
      await app.customerColumns.refreshIfStale(record.account_id).catch((error: unknown) => request.log.error({ err: error }, 'could not refresh the calculated columns'));
    }
    return { user: { ...toApiUser(record, { withApiToken: true }), customer_columns: await customerColumnsOf(db, record.account_id, record.customer_columns) } };
  }

  async function signUp(request: FastifyRequest, reply: FastifyReply, input: NonNullable<typeof CreateUserBody.static.user>) {
    const email = normalizeEmail(input.email ?? '');
    const name = (input.name ?? '').trim();
    // The sign-up form's struct (blank, the e-mail pattern, the password length), in the API's words.
    const refused = structDetails(signUpStruct, { name: input.name, email: input.email ?? '', password: input.password ?? '' }, fieldWording);
    const problems = new Problems();
    problems.add('/user/email', refused.email ?? ((await userByEmail(db, email)) ? TAKEN : undefined));
    problems.add('/user/password', refused.password ?? weakPasswordProblem(input.password ?? '', { email }));
    if (input.password_confirmation !== undefined && input.password_confirmation !== input.password) {
      problems.add('/user/password_confirmation', PASSWORD_MESSAGES.confirmation);
    }
    if (name.length > NAME_MAX_LENGTH) problems.add('/user/name', NAME_TOO_LONG);
    problems.check();

    const passwordHash = await hashPassword(input.password ?? '');
    const accountId = newId('acc');
    const userId = newId('usr');
    try {
      await createAccountWithOwner(db, {
        accountId,
        accountName: accountNameFor(name, email),
        userId,
        email,
        name,
        passwordHash,
        marketingRef: input.marketing_ref?.trim() || null,
      });
    } catch (error) {
      // Two sign-ups with one e-mail at once: the unique index decides.
      if (isUniqueViolation(error)) throw ApiError.of(422, TAKEN, '/user/email');
      throw error;
    }
    const user = await usersRepository(db, accountId).find(userId);
    if (!user) throw new Error('the new user was not found');
    await startSession(request, reply, user);
    return reply.status(201).send({ user: toApiUser(user) });
  }

  async function invite(request: FastifyRequest, reply: FastifyReply, auth: AuthContext, body: typeof CreateUserBody.static) {
    if (auth.permissionLevel !== 'user') throw ApiError.of(403, NOT_ALLOWED);
    const users = usersRepository(db, auth.accountId);
    const email = normalizeEmail(body.email ?? '');
    const name = (body.name ?? '').trim();
    // The invite form's struct, in the spec's words: 'Required', 'It does not look like a proper email address'.
    const refused = structDetails(inviteUserStruct, { name, email });
    const problems = new Problems();
    problems.add('/name', refused.name ?? (name.length > NAME_MAX_LENGTH ? NAME_TOO_LONG : undefined));
    let existing: UserRecord | undefined;
    if (refused.email) problems.add('/email', refused.email);
    else {
      existing = await userByEmail(db, email);
      // Inviting a colleague again whose invitation is still pending sends a fresh one.
      const resend = existing && existing.account_id === auth.accountId && existing.password_hash === null;
      if (existing && !resend) problems.add('/email', TAKEN);
    }
    problems.check();

    const now = app.now();
    const token = newSecretToken();
    const inviteeId = existing?.id ?? newId('usr');
    try {
      // A pending invitee invited again: earlier links stop working, only the newest invitation is valid.
      await users.invite({
        inviteeId,
        existing: existing !== undefined,
        email,
        name,
        permissionLevel: 'user',
        invitationId: newId('inv'),
        tokenHash: hashToken(token),
        inviterUserId: auth.userId,
        expiresAt: new Date(now.getTime() + INVITATION_TTL_MS),
        now,
      });
    } catch (error) {
      if (isUniqueViolation(error)) throw ApiError.of(422, TAKEN, '/email');
      throw error;
    }

    const [invitee, inviter, account] = await Promise.all([
      users.find(inviteeId),
      users.find(auth.userId),
      users.accountName(),
    ]);
    if (!invitee) throw new Error('the invited user was not found');
    const content = invitationEmail({
      link: appLink(request, `/invitation/${token}`),
      inviteeName: name,
      inviterName: inviter?.name || inviter?.email || '',
      accountName: account ?? '',
    });
    await app.mailer.send({ ...content, to: email, accountId: auth.accountId });
    return reply.status(201).send({ user: toApiUser(invitee) });
  }

  app.post(
    '/users',
    {
      onRequest: app.optionalUser,
      schema: {
        tags: ['users'],
        operationId: 'createUser',
        summary: 'Sign up (no token), or invite a colleague (token of a user-level user)',
        description:
          'Sign-up answers the new owner with the token in the Authorization header; 422 entries point at /user/<field>. ' +
          'An invitation answers the invitee (invitation_pending: true) and e-mails them a link; 422 entries point at /name and /email. ' +
          'Inviting a colleague whose invitation is pending sends a new invitation and invalidates the earlier link.',
        security: [{}, ...BEARER],
        body: CreateUserBody,
        response: { 201: signedIn(UserEnvelopeSchema, 'Signed up (with the Authorization header), or the invitee'), ...errorResponses(400, 401, 403, 422) },
      },
    },
    async (request, reply) => (request.auth ? invite(request, reply, request.auth, request.body) : signUp(request, reply, request.body.user ?? {})),
  );

  app.get(
    '/users',
    {
      onRequest: app.requireFullUser,
      schema: {
        tags: ['users'],
        operationId: 'listUsers',
        summary: "The users of the caller's account, invitees included",
        security: BEARER,
        response: { 200: Type.Object({ items: Type.Array(UserSchema) }), ...errorResponses(401, 403) },
      },
    },
    async (request) => {
      const users = await usersRepository(db, authOf(request).accountId).list();
      return { items: users.map((user) => toApiUser(user)) };
    },
  );

  app.get(
    '/users/me',
    {
      onRequest: app.requireUser,
      schema: {
        tags: ['users'],
        operationId: 'getCurrentUser',
        summary: 'The signed-in user (also how a token sign-in checks its token)',
        security: BEARER,
        response: { 200: MeEnvelopeSchema, ...errorResponses(401) },
      },
    },
    async (request) => me(request),
  );

  app.put(
    '/users/me',
    {
      onRequest: app.requireUser,
      schema: {
        tags: ['users'],
        operationId: 'updateCurrentUser',
        summary: "Change the signed-in user's name, currency or customer-table columns",
        security: BEARER,
        body: UpdateMeBody,
        response: { 200: MeEnvelopeSchema, ...errorResponses(400, 401, 422) },
      },
    },
    async (request) => {
      const auth = authOf(request);
      const { body } = request;
      const name = body.name?.trim();
      const currency = body.currency?.trim().toUpperCase();
      const problems = new Problems();
      if (name !== undefined && !name) problems.add('/name', "can't be blank");
      if (name !== undefined && name.length > NAME_MAX_LENGTH) problems.add('/name', NAME_TOO_LONG);
      if (currency !== undefined) {
        const known = CURRENCY_PATTERN.test(currency) && (await isKnownCurrency(db, currency));
        if (!known) problems.add('/currency', 'is invalid');
      }
      problems.check();
      // Column choices of ids the account offers, in the order given (other fields of an entry ignored).
      const columns = body.customer_columns === undefined ? undefined : await choicesToStore(db, auth.accountId, body.customer_columns);
      await usersRepository(db, auth.accountId).updateProfile(auth.userId, { name, currency, customer_columns: columns }, app.now());
      return me(request);
    },
  );
};
