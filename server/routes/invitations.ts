import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { acceptInvitationStruct } from '../../models/auth';
import { hashPassword } from '../auth/password';
import { PASSWORD_MESSAGES, weakPasswordProblem } from '../auth/passwordPolicy';
import { NAME_MAX_LENGTH, NAME_TOO_LONG, Problems } from '../auth/problems';
import { errorResponses, signedIn, UserEnvelopeSchema } from '../auth/schemas';
import { hashToken } from '../auth/secrets';
import { startSession } from '../auth/session';
import { findUser, toApiUser } from '../auth/userRecords';
import { ApiError } from '../http/errors';
import { fieldWording, structDetails } from '../http/structBody';

export const INVITATION_NOT_FOUND = 'This invitation is invalid or has expired';

/**
 * The token travels in the path, and Fastify's request log (info level) records paths: these
 * routes log at warn and above only, so invitation tokens never reach the log.
 */
const QUIET = 'warn';

const TokenParams = Type.Object({ token: Type.String({ maxLength: 200, description: 'The token of the invitation link' }) });

const InvitationSchema = Type.Object({
  invitee: Type.Object({ email: Type.String(), name: Type.String() }),
  account: Type.Object({ name: Type.String() }),
  inviter: Type.Object({ name: Type.String({ description: "Empty when the inviter's user was removed" }) }),
});

const AcceptBody = Type.Object({
  user: Type.Object({
    name: Type.Optional(Type.String({ maxLength: 1000, description: 'Omitted or blank keeps the name the inviter gave' })),
    password: Type.Optional(Type.String({ maxLength: 1024 })),
    password_confirmation: Type.Optional(Type.String({ maxLength: 1024 })),
  }),
});

/** Invitation links: show who invited whom, and accept (set a password, join the account, sign in). */
export const invitationRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const db = app.db.kysely;

  /** A pending invitation by its link's token: not accepted, not expired, invitee still without a password. */
  const findPending = (token: string) =>
    db
      .selectFrom('invitations')
      .innerJoin('users as invitee', (join) =>
        join.onRef('invitee.account_id', '=', 'invitations.account_id').onRef('invitee.id', '=', 'invitations.user_id'),
      )
      .innerJoin('accounts', 'accounts.id', 'invitations.account_id')
      .leftJoin('users as inviter', (join) =>
        join.onRef('inviter.account_id', '=', 'invitations.account_id').onRef('inviter.id', '=', 'invitations.inviter_user_id'),
      )
      .select([
        'invitations.account_id',
        'invitations.id',
        'invitations.user_id',
        'invitee.email as invitee_email',
        'invitee.name as invitee_name',
        'accounts.name as account_name',
        'inviter.name as inviter_name',
      ])
      .where('invitations.token_hash', '=', hashToken(token))
      .where('invitations.accepted_at', 'is', null)
      .where('invitations.expires_at', '>', app.now())
      .where('invitee.password_hash', 'is', null)
      .executeTakeFirst();

  app.get(
    '/invitations/:token',
    {
      logLevel: QUIET,
      schema: {
        tags: ['auth'],
        operationId: 'getInvitation',
        summary: 'Who is invited, to which account, by whom',
        params: TokenParams,
        response: { 200: InvitationSchema, ...errorResponses(404) },
      },
    },
    async (request) => {
      const invitation = await findPending(request.params.token);
      if (!invitation) throw ApiError.of(404, INVITATION_NOT_FOUND);
      return {
        invitee: { email: invitation.invitee_email, name: invitation.invitee_name },
        account: { name: invitation.account_name },
        inviter: { name: invitation.inviter_name ?? '' },
      };
    },
  );

  app.put(
    '/invitations/:token',
    {
      logLevel: QUIET,
      schema: {
        tags: ['auth'],
        operationId: 'acceptInvitation',
        summary: 'Accept an invitation: choose a password, join the account and sign in',
        params: TokenParams,
        body: AcceptBody,
        response: { 200: signedIn(UserEnvelopeSchema, 'Joined the account and signed in'), ...errorResponses(400, 404, 422) },
      },
    },
    async (request, reply) => {
      const invitation = await findPending(request.params.token);
      if (!invitation) throw ApiError.of(404, INVITATION_NOT_FOUND);
      const { password, password_confirmation: confirmation } = request.body.user;
      const name = request.body.user.name?.trim() || invitation.invitee_name;
      // The invitation form's struct, over the name the invitee will have, in the API's words.
      const refused = structDetails(acceptInvitationStruct, { name, password: password ?? '', password_confirmation: confirmation ?? '' }, fieldWording);
      const problems = new Problems();
      problems.add('/user/name', refused.name ?? (name.length > NAME_MAX_LENGTH ? NAME_TOO_LONG : undefined));
      problems.add('/user/password', refused.password ?? weakPasswordProblem(password ?? '', { email: invitation.invitee_email }));
      if (confirmation !== password) problems.add('/user/password_confirmation', PASSWORD_MESSAGES.confirmation);
      if (!problems.empty || password === undefined) throw problems.error();

      const passwordHash = await hashPassword(password);
      const now = app.now();
      const accepted = await db.transaction().execute(async (trx) => {
        // Single use, even when two requests race: only one update finds it pending.
        const row = await trx
          .updateTable('invitations')
          .set({ accepted_at: now })
          .where('account_id', '=', invitation.account_id)
          .where('id', '=', invitation.id)
          .where('accepted_at', 'is', null)
          .where('expires_at', '>', now)
          .returning('id')
          .executeTakeFirst();
        if (!row) return false;
        await trx
          .updateTable('users')
          .set({ name, password_hash: passwordHash, updated_at: now })
          .where('account_id', '=', invitation.account_id)
          .where('id', '=', invitation.user_id)
          .execute();
        return true;
      });
      if (!accepted) throw ApiError.of(404, INVITATION_NOT_FOUND);

      const user = await findUser(db, invitation.account_id, invitation.user_id);
      if (!user) throw new Error('the invited user was not found');
      await startSession(request, reply, user);
      return { user: toApiUser(user) };
    },
  );
};
