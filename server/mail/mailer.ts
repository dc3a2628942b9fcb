import type { Kysely } from 'kysely';
import nodemailer from 'nodemailer';
import type { DB } from '../db/schema';

/** An e-mail the product sends: plain text and HTML, and the one link it is about. */
export interface OutgoingEmail {
  to: string;
  subject: string;
  text: string;
  html: string;
  /** The link the e-mail carries (logged in outbox mode so it can be followed locally). */
  link: string;
  accountId?: string | null;
}

export interface Mailer {
  /** Delivers the e-mail; resolves once the SMTP server or the outbox has it. */
  send(email: OutgoingEmail): Promise<void>;
}

/** The part of a nodemailer transporter the mailer uses. */
export interface MailTransport {
  sendMail(message: { from: string; to: string; subject: string; text: string; html: string }): Promise<unknown>;
}

export interface MailerOptions {
  db: Kysely<DB>;
  from: string;
  /** SMTP connection URL (`smtps://user:pass@host:465`); without it (and without `transport`) e-mail goes to the outbox. */
  smtpUrl?: string | undefined;
  /** A ready transport (tests); takes precedence over `smtpUrl`. */
  transport?: MailTransport;
  /** Where the outbox line goes. */
  log: (line: string) => void;
}

/** Keeps a header value on one line. */
const oneLine = (value: string) => value.replace(/[\r\n]+/g, ' ');

/**
 * E-mail through nodemailer when SMTP is configured. Without SMTP each message is written to
 * the `outbox_emails` table and announced by one log line `[mail] to=… subject=… link=…`, so
 * links can be followed locally, by e2e tests (`GET /api/v11/dev/outbox`) and by an operator
 * who has not set up mail yet. With SMTP nothing is stored: the table would hold live links.
 */
export function createMailer(options: MailerOptions): Mailer {
  const transport: MailTransport | undefined = options.transport ?? (options.smtpUrl ? nodemailer.createTransport(options.smtpUrl) : undefined);
  if (transport) {
    return {
      send: async (email) => {
        await transport.sendMail({ from: options.from, to: email.to, subject: oneLine(email.subject), text: email.text, html: email.html });
      },
    };
  }
  return {
    send: async (email) => {
      await options.db
        .insertInto('outbox_emails')
        .values({ account_id: email.accountId ?? null, to: email.to, subject: oneLine(email.subject), text: email.text, html: email.html })
        .execute();
      options.log(`[mail] to=${email.to} subject=${oneLine(email.subject)} link=${email.link}`);
    },
  };
}
