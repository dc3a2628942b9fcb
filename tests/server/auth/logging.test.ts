import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OutgoingEmail } from '../../../server/mail/mailer';
import { createAuthTestApp, PASSWORD, signIn, signUp, uniqueEmail, type AuthTestApp } from './support';

let t: AuthTestApp;
const lines: string[] = [];
const sent: OutgoingEmail[] = [];

beforeAll(async () => {
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString());
      done();
    },
  });
  // As server/main.ts configures it, at info level; e-mails go to a list instead of the outbox log line.
  t = await createAuthTestApp({
    logger: { level: 'info', redact: ['req.headers.authorization'], stream },
    mailer: { send: async (email) => void sent.push(email) },
  });
});
afterAll(() => t.close());

const tokenOf = (email: OutgoingEmail | undefined) => email?.link.split('/').at(-1) ?? '';

describe('request logs', () => {
  it('never contain passwords, sign-in tokens, or reset and invitation tokens', async () => {
    const owner = await signUp(t.app);
    const signedIn = await signIn(t.app, owner.email, owner.password);
    const jwt = String(signedIn.headers.authorization).slice('Bearer '.length);

    await t.app.inject({ method: 'POST', url: '/api/v11/users', headers: { authorization: owner.authorization }, payload: { email: uniqueEmail(), name: 'Bob' } });
    const invitationToken = tokenOf(sent.at(-1));
    const invitationPassword = 'invited-secret-password-1';
    expect((await t.app.inject({ method: 'GET', url: `/api/v11/invitations/${invitationToken}` })).statusCode).toBe(200);
    const accepted = await t.app.inject({
      method: 'PUT',
      url: `/api/v11/invitations/${invitationToken}`,
      payload: { user: { password: invitationPassword, password_confirmation: invitationPassword } },
    });
    expect(accepted.statusCode).toBe(200);

    await t.app.inject({ method: 'POST', url: '/api/v11/users/password', payload: { user: { email: owner.email } } });
    const resetToken = tokenOf(sent.at(-1));
    const resetPassword = 'reset-secret-password-2';
    const reset = await t.app.inject({
      method: 'PUT',
      url: '/api/v11/users/password',
      payload: { user: { reset_password_token: resetToken, password: resetPassword, password_confirmation: resetPassword } },
    });
    expect(reset.statusCode).toBe(200);

    const log = lines.join('');
    expect(log).toContain('incoming request');
    for (const secret of [PASSWORD, jwt, owner.authorization.slice('Bearer '.length), invitationToken, invitationPassword, resetToken, resetPassword]) {
      expect(secret.length).toBeGreaterThan(8);
      expect(log).not.toContain(secret);
    }
  });
});
