import fastifyPlugin from 'fastify-plugin';
import { createMailer, type Mailer } from './mailer';

declare module 'fastify' {
  interface FastifyInstance {
    mailer: Mailer;
  }
}

export const DEFAULT_MAIL_FROM = 'Subscope <no-reply@subscope.dev>';

/** Decorates `app.mailer`: the given one (tests), or SMTP / outbox from the app's config. */
export const mailerPlugin = fastifyPlugin<{ mailer?: Mailer | undefined }>(
  async (app, options) => {
    const mailer =
      options.mailer ??
      createMailer({
        db: app.db.kysely,
        from: app.config.mailFrom ?? DEFAULT_MAIL_FROM,
        smtpUrl: app.config.smtpUrl,
        log: (line) => app.log.info(line),
      });
    app.decorate('mailer', mailer);
  },
  { name: 'subscope-mailer', fastify: '5.x' },
);
