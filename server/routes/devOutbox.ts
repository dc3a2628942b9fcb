import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { errorResponses } from '../auth/schemas';
import { isLoopbackHost } from '../demo/password';
import { ApiError } from '../http/errors';

const OutboxEmail = Type.Object({
  id: Type.Integer(),
  to: Type.String(),
  subject: Type.String(),
  text: Type.String(),
  html: Type.Union([Type.String(), Type.Null()]),
  created_at: Type.String({ format: 'date-time' }),
});

/** How many e-mails one call lists, newest first. */
const OUTBOX_PAGE = 100;

/**
 * The e-mail outbox (e-mails written instead of sent when no SMTP server is configured), so
 * links can be followed in development and e2e tests. It hands out password-reset and
 * invitation links, so it exists only when SUBSCOPE_DEV_OUTBOX=true outside production, and
 * answers only clients on this machine: the socket's own peer address, never X-Forwarded-For.
 */
export const devOutboxRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/dev/outbox',
    {
      schema: {
        tags: ['development'],
        operationId: 'listOutboxEmails',
        summary: 'E-mails written to the outbox, newest first (not in production)',
        querystring: Type.Object({ to: Type.Optional(Type.String({ maxLength: 1000, description: 'Only e-mails to this address (any case)' })) }),
        response: { 200: Type.Object({ items: Type.Array(OutboxEmail) }), ...errorResponses(404) },
      },
    },
    async (request) => {
      if (!isLoopbackHost(request.socket.remoteAddress ?? '')) throw ApiError.of(404, `No route for GET ${request.url.split('?')[0] ?? ''}`);
      let query = app.db.kysely.selectFrom('outbox_emails').select(['id', 'to', 'subject', 'text', 'html', 'created_at']);
      const to = request.query.to?.trim().toLowerCase();
      if (to) query = query.where((eb) => eb(eb.fn('lower', ['to']), '=', to));
      const rows = await query.orderBy('id', 'desc').limit(OUTBOX_PAGE).execute();
      return { items: rows.map((row) => ({ ...row, created_at: row.created_at.toISOString() })) };
    },
  );
};
