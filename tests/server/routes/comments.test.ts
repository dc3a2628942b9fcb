import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMMENT_EMPTY, COMMENT_MAX_LENGTH, COMMENT_TOO_LONG } from '../../../server/routes/comments';
import { createAuthTestApp, expectSignInRequired, problemsOf, sharedReportOnlyColleague, signIn, signUp, type AuthTestApp, type SignedUp } from '../auth/support';
import { testEngine } from '../helpers/database';

/** Comments under a report over the API: POST and PUT /comments (spec) and GET /comments (ours). */

interface Comment {
  id: string;
  content: string;
  user: { name: string } | null;
  added_at: string;
  pinned_at: string | null;
}

let harness: AuthTestApp;
let app: FastifyInstance;
let owner: SignedUp;
let stranger: SignedUp;

const api = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, who?: SignedUp, payload?: unknown) =>
  app.inject({ method, url: `/api/v11${url}`, headers: who ? { authorization: who.authorization } : {}, ...(payload === undefined ? {} : { payload: payload as object }) });

async function newReport(who: SignedUp): Promise<string> {
  const created = await api('POST', '/business_reports', who, { title: 'comments', sections: [] });
  expect(created.statusCode, created.body).toBe(201);
  return (created.json() as { id: string }).id;
}

async function comment(who: SignedUp, reportId: string, content: string): Promise<Comment> {
  const response = await api('POST', '/comments', who, { commented_id: reportId, content });
  expect(response.statusCode, response.body).toBe(201);
  return response.json() as Comment;
}

async function list(reportId: string, who: SignedUp): Promise<Comment[]> {
  const response = await api('GET', `/comments?commented_id=${reportId}`, who);
  expect(response.statusCode, response.body).toBe(200);
  return (response.json() as { items: Comment[] }).items;
}

/** A second full user of the owner's account. */
async function fullColleague(owner: SignedUp, name: string): Promise<SignedUp> {
  const signedUp = await signUp(app, { name });
  await harness.db.kysely.updateTable('users').set({ account_id: owner.user.account_id }).where('id', '=', signedUp.user.id).execute();
  const signedIn = await signIn(app, signedUp.email, signedUp.password);
  expect(signedIn.statusCode, signedIn.body).toBe(200);
  return { ...signedUp, authorization: String(signedIn.headers.authorization) };
}

beforeAll(async () => {
  harness = await createAuthTestApp();
  app = harness.app;
  owner = await signUp(app, { name: 'Ada Owner' });
  stranger = await signUp(app, { name: 'Sid Stranger' });
});
afterAll(() => harness?.close());

describe(`comments on ${testEngine}`, () => {
  it('adds a comment with its author and time, trimmed, and lists the report’s comments newest first', async () => {
    const reportId = await newReport(owner);
    expect(await list(reportId, owner)).toEqual([]);

    const before = Date.now();
    const first = await comment(owner, reportId, '  Churn is down in March.\n');
    expect(first).toEqual({ id: expect.stringMatching(/^cmt[A-Za-z0-9]{12}$/) as unknown, content: 'Churn is down in March.', user: { name: 'Ada Owner' }, added_at: expect.any(String) as unknown, pinned_at: null });
    expect(Math.abs(Date.parse(first.added_at) - before)).toBeLessThan(60_000);

    const colleague = await fullColleague(owner, 'Bea Colleague');
    const second = await comment(colleague, reportId, 'Agreed, thanks to the new onboarding.');
    expect(second.user).toEqual({ name: 'Bea Colleague' });

    const items = await list(reportId, owner);
    expect(items.map((item) => [item.content, item.user?.name])).toEqual([
      ['Agreed, thanks to the new onboarding.', 'Bea Colleague'],
      ['Churn is down in March.', 'Ada Owner'],
    ]);
    // Another report's comments are its own.
    expect(await list(await newReport(owner), owner)).toEqual([]);
  });

  it('pins and unpins: pinned comments are listed first', async () => {
    const reportId = await newReport(owner);
    const oldest = await comment(owner, reportId, 'oldest');
    await comment(owner, reportId, 'middle');
    await comment(owner, reportId, 'newest');

    const pinned = await api('PUT', `/comments/${oldest.id}`, owner, { pinned: true });
    expect(pinned.statusCode, pinned.body).toBe(200);
    const pinnedAt = (pinned.json() as Comment).pinned_at;
    expect(pinnedAt).toEqual(expect.any(String));
    expect((await list(reportId, owner)).map((item) => item.content)).toEqual(['oldest', 'newest', 'middle']);

    // Pinning again keeps when it was pinned.
    expect(((await api('PUT', `/comments/${oldest.id}`, owner, { pinned: true })).json() as Comment).pinned_at).toBe(pinnedAt);

    const unpinned = await api('PUT', `/comments/${oldest.id}`, owner, { pinned: false });
    expect(unpinned.statusCode).toBe(200);
    expect((unpinned.json() as Comment).pinned_at).toBeNull();
    expect((await list(reportId, owner)).map((item) => item.content)).toEqual(['newest', 'middle', 'oldest']);
  });

  it('refuses empty, blank or too long content with 422 at /content, and a missing field with 400', async () => {
    const reportId = await newReport(owner);
    for (const content of ['', '   \n\t ']) {
      const response = await api('POST', '/comments', owner, { commented_id: reportId, content });
      expect(response.statusCode).toBe(422);
      expect(problemsOf(response)).toEqual([{ pointer: '/content', detail: COMMENT_EMPTY }]);
    }
    const tooLong = await api('POST', '/comments', owner, { commented_id: reportId, content: 'x'.repeat(COMMENT_MAX_LENGTH + 1) });
    expect(tooLong.statusCode).toBe(422);
    expect(problemsOf(tooLong)).toEqual([{ pointer: '/content', detail: COMMENT_TOO_LONG }]);
    // At the limit (spaces around do not count): saved.
    expect((await comment(owner, reportId, ` ${'y'.repeat(COMMENT_MAX_LENGTH)} `)).content).toHaveLength(COMMENT_MAX_LENGTH);

    const missing = await api('POST', '/comments', owner, { commented_id: reportId });
    expect(missing.statusCode).toBe(400);
    expect(problemsOf(missing)).toEqual([{ pointer: '/content', detail: 'content is required' }]);
    const badPin = await api('PUT', `/comments/${(await list(reportId, owner))[0]?.id ?? 'none'}`, owner, { pinned: 'yes' });
    expect(badPin.statusCode).toBe(400);
    expect(await list(reportId, owner)).toHaveLength(1);
  });

  it('keeps another account’s reports and comments from the caller (404), and asks for a sign-in (401)', async () => {
    const reportId = await newReport(owner);
    const existing = await comment(owner, reportId, 'private');

    expect((await api('GET', `/comments?commented_id=${reportId}`, stranger)).statusCode).toBe(404);
    expect((await api('POST', '/comments', stranger, { commented_id: reportId, content: 'hello' })).statusCode).toBe(404);
    expect((await api('PUT', `/comments/${existing.id}`, stranger, { pinned: true })).statusCode).toBe(404);
    expect((await api('POST', '/comments', owner, { commented_id: 'repunknown00000', content: 'hello' })).statusCode).toBe(404);
    expect((await api('PUT', '/comments/cmtunknown00000', owner, { pinned: true })).statusCode).toBe(404);

    expectSignInRequired(await api('GET', `/comments?commented_id=${reportId}`));
    expectSignInRequired(await api('POST', '/comments', undefined, { commented_id: reportId, content: 'hello' }));
    expectSignInRequired(await api('PUT', `/comments/${existing.id}`, undefined, { pinned: true }));

    expect((await list(reportId, owner)).map((item) => [item.content, item.pinned_at])).toEqual([['private', null]]);
  });

  it('lets a shared_report_only colleague read the comments but not write or pin them (403)', async () => {
    const reportId = await newReport(owner);
    const existing = await comment(owner, reportId, 'for everyone');
    const colleague = await sharedReportOnlyColleague(app, harness.db, owner);

    expect((await list(reportId, colleague)).map((item) => item.content)).toEqual(['for everyone']);
    expect((await api('POST', '/comments', colleague, { commented_id: reportId, content: 'me too' })).statusCode).toBe(403);
    expect((await api('PUT', `/comments/${existing.id}`, colleague, { pinned: true })).statusCode).toBe(403);
    expect((await list(reportId, owner)).map((item) => [item.content, item.pinned_at])).toEqual([['for everyone', null]]);
  });

  it('keeps a comment whose author was deleted, without an author', async () => {
    const reportId = await newReport(owner);
    const colleague = await fullColleague(owner, 'Leaving Colleague');
    await comment(colleague, reportId, 'handing over');
    await harness.db.kysely.deleteFrom('users').where('account_id', '=', owner.user.account_id).where('id', '=', colleague.user.id).execute();
    expect((await list(reportId, owner)).map((item) => [item.content, item.user])).toEqual([['handing over', null]]);
  });

  it('goes with its report', async () => {
    const reportId = await newReport(owner);
    const existing = await comment(owner, reportId, 'soon gone');
    expect((await api('DELETE', `/business_reports/${reportId}`, owner)).statusCode).toBe(204);
    expect((await api('GET', `/comments?commented_id=${reportId}`, owner)).statusCode).toBe(404);
    expect((await api('PUT', `/comments/${existing.id}`, owner, { pinned: true })).statusCode).toBe(404);
  });
});
