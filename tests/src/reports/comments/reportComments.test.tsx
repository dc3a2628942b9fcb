import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useEffect, type ReactNode } from 'react';
import { describe, expect, it } from 'vitest';
import type { AuthUser } from '../../../../models/auth';
import { useApi } from '../../../../src/api/ApiContext';
import { ReportComments } from '../../../../src/reports/comments/ReportComments';
import type { ReportComment } from '../../../../src/reports/comments/commentsApi';
import { defaultFakeApi, fullAccessUser, renderWithProviders, sharedReportOnlyUser } from '../../renderApp';
import { apiErrors, type FakeApi } from '../../support/fakeApi';

const REPORT_ID = 'rep1';
const LIST = 'GET /comments';
const ADD = 'POST /comments';

const minutesAgo = (minutes: number) => new Date(Date.now() - minutes * 60_000).toISOString();

const older: ReportComment = { id: 'cmt1', content: 'Churn is down.', user: { name: 'Bea Colleague' }, added_at: minutesAgo(180), pinned_at: null };
const newer: ReportComment = { id: 'cmt2', content: 'Agreed.', user: { name: 'Ada Lovelace' }, added_at: minutesAgo(5), pinned_at: null };
const pinned: ReportComment = { id: 'cmt0', content: 'Read this first.\nTwo lines.', user: null, added_at: '2026-03-01T09:30:00.000Z', pinned_at: '2026-03-01T10:00:00.000Z' };

function commentsApi(initial: ReportComment[], user: AuthUser = fullAccessUser): FakeApi {
  let items = [...initial];
  const api = defaultFakeApi(user);
  api.on(LIST, () => ({ status: 200, body: { items } }));
  api.on(ADD, ({ body }) => {
    const { content } = body as { content: string };
    const created: ReportComment = { id: `cmt${items.length + 10}`, content: content.trim(), user: { name: user.name }, added_at: new Date().toISOString(), pinned_at: null };
    items = [created, ...items];
    return { status: 201, body: created };
  });
  return api;
}

function renderComments(
  api: FakeApi,
  { user = fullAccessUser, accountId = fullAccessUser.account_id, demo = false }: { user?: AuthUser | null; accountId?: string; demo?: boolean } = {},
  after: ReactNode = null,
) {
  return renderWithProviders(
    <>
      <ReportComments reportId={REPORT_ID} accountId={accountId} demo={demo} />
      {after}
    </>,
    { user, api },
  );
}

const PROBE = 'GET /users';

/** Rendered after the comments: makes one API call (through the same client) from its effect. */
function AfterCommentsProbe() {
  const client = useApi();
  useEffect(() => {
    void client.GET('/users');
  }, [client]);
  return null;
}


describe('the report’s comments', () => {
  it('lists the comments, pinned first with a badge, then newest first, each with its author and time', async () => {
    const user = userEvent.setup({ delay: null });
    const api = commentsApi([pinned, newer, older]);
    api.hold(LIST);
    renderComments(api);
    expect(screen.getByLabelText('Loading comments')).toBeInTheDocument();
    await waitFor(() => expect(api.waiting(LIST)).toBeGreaterThan(0));
    while (api.waiting(LIST) > 0) api.release(LIST, { status: 200, body: { items: [pinned, newer, older] } });

    const articles = await screen.findAllByRole('article');
    expect(articles.map((article) => article.getAttribute('aria-label'))).toEqual(['Comment by Former user', 'Comment by Ada Lovelace', 'Comment by Bea Colleague']);
    expect(within(articles[0]!).getByText('Pinned')).toBeInTheDocument();
    expect(within(articles[1]!).queryByText('Pinned')).not.toBeInTheDocument();
    expect(articles[0]).toHaveTextContent('Read this first.');
    expect(within(articles[1]!).getByText('5 minutes ago')).toBeInTheDocument();
    expect(within(articles[2]!).getByText('3 hours ago')).toBeInTheDocument();
    expect(api.requestsTo(LIST).length).toBeGreaterThan(0);

    // The exact time in a tooltip, for the keyboard too.
    const time = within(articles[0]!).getByText((_, node) => node?.tagName === 'TIME');
    expect(time).toHaveAttribute('datetime', '2026-03-01T09:30:00.000Z');
    await user.tab();
    await user.hover(time);
    expect(await screen.findByRole('tooltip')).toHaveTextContent('1 Mar 2026, 09:30');
  });

  it('keeps Comment disabled while the text is empty or spaces, then adds the comment below the pinned ones', async () => {
    const user = userEvent.setup({ delay: null });
    const api = commentsApi([pinned, older]);
    renderComments(api);
    await screen.findAllByRole('article');
    const button = screen.getByRole('button', { name: 'Comment' });
    const box = screen.getByRole('textbox', { name: 'New comment' });
    expect(button).toBeDisabled();
    await user.type(box, '   ');
    expect(button).toBeDisabled();
    await user.clear(box);
    await user.type(box, '  Nice month! ');
    expect(button).toBeEnabled();
    await user.click(button);

    await waitFor(() => expect(screen.getAllByRole('article')).toHaveLength(3));
    expect(api.requestsTo(ADD)[0]?.body).toEqual({ commented_id: REPORT_ID, content: '  Nice month! ' });
    const articles = screen.getAllByRole('article');
    expect(articles.map((article) => article.getAttribute('aria-label'))).toEqual(['Comment by Former user', 'Comment by Ada Lovelace', 'Comment by Bea Colleague']);
    expect(articles[1]).toHaveTextContent('Nice month!');
    expect(box).toHaveValue('');
    expect(button).toBeDisabled();
  });

  it('keeps what was typed when the comment is not saved, with the spec’s toast, or the server’s reason', async () => {
    const user = userEvent.setup({ delay: null });
    const api = commentsApi([]);
    api.on(ADD, () => apiErrors(500, { detail: 'boom' }));
    renderComments(api);
    expect(await screen.findByText('No comments yet.')).toBeInTheDocument();
    const box = screen.getByRole('textbox', { name: 'New comment' });
    await user.type(box, 'Lost?');
    await user.click(screen.getByRole('button', { name: 'Comment' }));
    expect(await screen.findByText('We could not save your changes. Please try again.')).toBeInTheDocument();
    expect(box).toHaveValue('Lost?');
    expect(screen.queryByRole('article')).not.toBeInTheDocument();

    api.on(ADD, () => apiErrors(422, { pointer: '/content', detail: 'Comment is too long (at most 5000 characters)' }));
    await user.click(screen.getByRole('button', { name: 'Comment' }));
    expect(await screen.findByText('Comment is too long (at most 5000 characters)')).toBeInTheDocument();
    expect(box).toHaveValue('Lost?');
  });

  it('shows a shared_report_only colleague the comments without the form', async () => {
    const api = commentsApi([older], sharedReportOnlyUser);
    renderComments(api, { user: sharedReportOnlyUser });
    expect(await screen.findByRole('article', { name: 'Comment by Bea Colleague' })).toHaveTextContent('Churn is down.');
    expect(screen.queryByRole('textbox', { name: 'New comment' })).not.toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Comment' })).not.toBeInTheDocument();
  });

  it('shows nothing, and asks nothing, in the demo, to a visitor, or to a user of another account', async () => {
    for (const options of [{ demo: true }, { user: null }, { accountId: 'acc_other' }]) {
      const api = commentsApi([older]);
      const view = renderComments(api, options, <AfterCommentsProbe />);
      // The probe asks once its effect runs, after the comments' own: when its call has arrived,
      // a call the comments had made would have arrived too.
      await waitFor(() => expect(api.requestsTo(PROBE)).not.toHaveLength(0));
      expect(screen.queryByRole('heading', { name: 'Comments' })).not.toBeInTheDocument();
      expect(screen.queryByRole('textbox', { name: 'New comment' })).not.toBeInTheDocument();
      expect(api.requestsTo(LIST)).toEqual([]);
      view.unmount();
    }
  });

  it('says so when the comments cannot be read', async () => {
    const api = commentsApi([]);
    api.on(LIST, () => apiErrors(500, { detail: 'boom' }));
    renderComments(api);
    expect(await screen.findByText('We could not fetch comments')).toBeInTheDocument();
  });
});
