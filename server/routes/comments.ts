import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { sql } from 'kysely';
import { authOf } from '../auth/plugin';
import { randomAlphanumeric } from '../auth/secrets';
import { BEARER, errorResponses } from '../auth/schemas';
import { ApiError } from '../http/errors';
import { REPORT_NOT_FOUND, reportExists } from '../reports/reports';

/**
 * Comments under a report (second spec document, sections 4, 6 and 7): written by the
 * full (`user`-level) users of the report's account, read by its users; pinning toggles
 * `pinned_at` (the interface does not offer it). `commented_id` is the report's id.
 */

export const COMMENT_MAX_LENGTH = 5_000;
export const COMMENT_EMPTY = 'Comment cannot be empty';
export const COMMENT_TOO_LONG = `Comment is too long (at most ${COMMENT_MAX_LENGTH} characters)`;
export const COMMENT_NOT_FOUND = 'Comment not found';
/** At most this many comments are listed (the newest, pinned ones first). */
export const COMMENTS_LIST_LIMIT = 1_000;

const newCommentId = () => `cmt${randomAlphanumeric(12)}`;

const CommentSchema = Type.Object({
  id: Type.String(),
  content: Type.String(),
  user: Type.Union([Type.Object({ name: Type.String() }), Type.Null()], { description: 'The author; null once the author’s user is deleted' }),
  added_at: Type.String({ format: 'date-time' }),
  pinned_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
});
const CommentsSchema = Type.Object({ items: Type.Array(CommentSchema) });
const IdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) });

const iso = (value: Date | string) => (value instanceof Date ? value : new Date(value)).toISOString();

export const commentRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const db = app.db.kysely;

  function selectComments(accountId: string) {
    return db
      .selectFrom('comments as c')
      .leftJoin('users as u', (join) => join.onRef('u.account_id', '=', 'c.account_id').onRef('u.id', '=', 'c.user_id'))
      .select(['c.id', 'c.content', 'c.added_at', 'c.pinned_at', 'u.name as user_name', 'c.user_id'])
      .where('c.account_id', '=', accountId);
  }

  type Row = Awaited<ReturnType<ReturnType<typeof selectComments>['executeTakeFirstOrThrow']>>;
  const view = (row: Row) => ({
    id: row.id,
    content: row.content,
    user: row.user_id === null ? null : { name: row.user_name ?? '' },
    added_at: iso(row.added_at),
    pinned_at: row.pinned_at === null ? null : iso(row.pinned_at),
  });

  async function mustBeReport(accountId: string, reportId: string) {
    if (!(await reportExists(db, accountId, reportId))) throw ApiError.of(404, REPORT_NOT_FOUND, '/commented_id');
  }

  app.get(
    '/comments',
    {
      onRequest: app.requireUser,
      schema: {
        tags: ['comments'],
        operationId: 'listComments',
        summary: 'A report’s comments: pinned ones first, then newest first',
        description: 'Not in the spec’s list of calls (it names none for reading comments): our addition for the report page.',
        security: BEARER,
        querystring: Type.Object({ commented_id: Type.String({ minLength: 1, maxLength: 64, description: 'The report’s id' }) }),
        response: { 200: CommentsSchema, ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => {
      const { accountId } = authOf(request);
      const reportId = request.query.commented_id;
      await mustBeReport(accountId, reportId);
      const rows = await selectComments(accountId)
        .where('c.report_id', '=', reportId)
        .orderBy(sql`c.pinned_at is null`)
        .orderBy('c.added_at', 'desc')
        .orderBy('c.id', 'desc')
        .limit(COMMENTS_LIST_LIMIT)
        .execute();
      return { items: rows.map(view) };
    },
  );

  app.post(
    '/comments',
    {
      onRequest: app.requireFullUser,
      schema: {
        tags: ['comments'],
        operationId: 'addComment',
        summary: 'Comments on a report',
        description: `The content is trimmed; empty or longer than ${COMMENT_MAX_LENGTH} characters is 422 at /content.`,
        security: BEARER,
        body: Type.Object({
          commented_id: Type.String({ minLength: 1, maxLength: 64, description: 'The report’s id' }),
          content: Type.String(),
        }),
        response: { 201: CommentSchema, ...errorResponses(400, 401, 403, 404, 422) },
      },
    },
    async (request, reply) => {
      const { accountId, userId } = authOf(request);
      const content = request.body.content.trim();
      if (content === '') throw ApiError.of(422, COMMENT_EMPTY, '/content');
      if (content.length > COMMENT_MAX_LENGTH) throw ApiError.of(422, COMMENT_TOO_LONG, '/content');
      const reportId = request.body.commented_id;
      await mustBeReport(accountId, reportId);
      const id = newCommentId();
      await db.insertInto('comments').values({ account_id: accountId, id, report_id: reportId, user_id: userId, content }).execute();
      const row = await selectComments(accountId).where('c.id', '=', id).executeTakeFirstOrThrow();
      return reply.code(201).send(view(row));
    },
  );

  app.put(
    '/comments/:id',
    {
      onRequest: app.requireFullUser,
      schema: {
        tags: ['comments'],
        operationId: 'updateComment',
        summary: 'Pins or unpins a comment (pinned comments are listed first)',
        security: BEARER,
        params: IdParams,
        body: Type.Object({ pinned: Type.Boolean() }),
        response: { 200: CommentSchema, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const { accountId } = authOf(request);
      const { id } = request.params;
      const pinned = request.body.pinned;
      const updated = await db
        .updateTable('comments')
        // Pinning a pinned comment keeps when it was pinned.
        .set({ pinned_at: pinned ? sql<Date>`coalesce(pinned_at, now())` : null })
        .where('account_id', '=', accountId)
        .where('id', '=', id)
        .executeTakeFirst();
      if (Number(updated.numUpdatedRows) === 0) throw ApiError.of(404, COMMENT_NOT_FOUND);
      return view(await selectComments(accountId).where('c.id', '=', id).executeTakeFirstOrThrow());
    },
  );
};
