import nodemailer from 'nodemailer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMailer, type MailTransport } from '../../../server/mail/mailer';
import { TEST_CONFIG } from '../helpers/app';
import { createAuthTestApp, outboxFor, signUp, uniqueEmail, type AuthTestApp, type OutboxEmail } from './support';

let t: AuthTestApp;

beforeAll(async () => {
  t = await createAuthTestApp();
});
afterAll(() => t.close());

const requestReset = (email: string) => t.app.inject({ method: 'POST', url: '/api/v11/users/password', payload: { user: { email } } });

describe('GET /api/v11/dev/outbox', () => {
  it('lists e-mails newest first, filtered by recipient in any case', async () => {
    const ada = await signUp(t.app);
    const bob = await signUp(t.app);
    await requestReset(ada.email);
    await requestReset(bob.email);
    await requestReset(ada.email);
    const all = await t.app.inject({ method: 'GET', url: '/api/v11/dev/outbox' });
    const items = (all.json() as { items: OutboxEmail[] }).items;
    expect(items.map((m) => m.to)).toEqual([ada.email, bob.email, ada.email]);
    expect(items[0]).toEqual({
      id: expect.any(Number),
      to: ada.email,
      subject: 'Reset your Subscope password',
      text: expect.stringContaining('/reset_password/'),
      html: expect.stringContaining('<a href='),
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
    const filtered = await outboxFor(t.app, ada.email.toUpperCase());
    expect(filtered.map((m) => m.id)).toEqual([items[0]?.id, items[2]?.id]);
    expect(await outboxFor(t.app, uniqueEmail())).toEqual([]);
  });

  it('does not exist in production', async () => {
    const production = await createAuthTestApp({ config: { ...TEST_CONFIG, production: true } });
    try {
      const response = await production.app.inject({ method: 'GET', url: '/api/v11/dev/outbox' });
      expect(response.statusCode).toBe(404);
    } finally {
      await production.close();
    }
  });
});

describe('mailer', () => {
  it('without SMTP writes the e-mail to the outbox and logs one line with the link', async () => {
    const lines: string[] = [];
    const mailer = createMailer({ db: t.db.kysely, from: 'Subscope <no-reply@subscope.dev>', log: (line) => lines.push(line) });
    const to = uniqueEmail('logged');
    await mailer.send({ to, subject: 'Hello\nthere', text: 'text', html: '<p>html</p>', link: 'http://localhost/x/1' });
    expect(lines).toEqual([`[mail] to=${to} subject=Hello there link=http://localhost/x/1`]);
    expect(await outboxFor(t.app, to)).toMatchObject([{ to, subject: 'Hello there', text: 'text', html: '<p>html</p>' }]);
  });

  it('with a transport (SMTP) sends through nodemailer and stores nothing', async () => {
    const sent: Array<{ envelope: unknown; message: string }> = [];
    const json = nodemailer.createTransport({ jsonTransport: true });
    const transport: MailTransport = {
      sendMail: async (message) => {
        const info = await json.sendMail(message);
        sent.push({ envelope: info.envelope, message: String(info.message) });
        return info;
      },
    };
    const lines: string[] = [];
    const mailer = createMailer({ db: t.db.kysely, from: 'Subscope <no-reply@subscope.dev>', transport, log: (line) => lines.push(line) });
    const to = uniqueEmail('smtp');
    await mailer.send({ to, subject: 'Reset your Subscope password', text: 'plain', html: '<p>rich</p>', link: 'http://localhost/r/1' });
    expect(sent).toHaveLength(1);
    expect(sent[0]?.envelope).toEqual({ from: 'no-reply@subscope.dev', to: [to] });
    const message = JSON.parse(sent[0]?.message ?? '{}') as { subject: string; text: string; html: string };
    expect(message).toMatchObject({ subject: 'Reset your Subscope password', text: 'plain', html: '<p>rich</p>' });
    expect(lines).toEqual([]);
    expect(await outboxFor(t.app, to)).toEqual([]);
  });
});

describe('when e-mail cannot be delivered', () => {
  let failing: AuthTestApp;
  beforeAll(async () => {
    failing = await createAuthTestApp({ mailer: { send: () => Promise.reject(new Error('SMTP connection refused')) } });
  });
  afterAll(() => failing.close());

  it('still answers a reset request exactly as for an unknown e-mail', async () => {
    const owner = await signUp(failing.app);
    const request = (email: string) => failing.app.inject({ method: 'POST', url: '/api/v11/users/password', payload: { user: { email } } });
    const known = await request(owner.email);
    const unknown = await request(uniqueEmail());
    expect(known.statusCode).toBe(200);
    expect(known.body).toBe(unknown.body);
  });

  it('answers an invitation with 500 and keeps the invitee pending, so inviting again resends rather than refuses', async () => {
    const owner = await signUp(failing.app);
    const email = uniqueEmail('colleague');
    const invite = () =>
      failing.app.inject({ method: 'POST', url: '/api/v11/users', headers: { authorization: owner.authorization }, payload: { email, name: 'Bob' } });
    const response = await invite();
    expect(response.statusCode).toBe(500);
    expect(response.json()).toEqual({ errors: [{ detail: 'Something went wrong', title: 'Internal Server Error', status: '500' }] });
    expect((await invite()).statusCode).toBe(500);
    const pending = await failing.db.kysely.selectFrom('users').select('id').where('email', '=', email).execute();
    expect(pending).toHaveLength(1);
  });
});
