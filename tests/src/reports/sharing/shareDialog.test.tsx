import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { ShareDialog } from '../../../../src/reports/sharing/ShareDialog';
import { GROUP_URL_FAILURE, SHARE_URL_FAILURE } from '../../../../src/reports/sharing/sharingApi';
import { fullAccessUser, renderWithProviders } from '../../renderApp';
import { apiErrors } from '../../support/fakeApi';
import { filtersApi, SECRET } from '../filters/filterFixtures';

const SHARE_SECRET = 'S'.repeat(32);
const GROUP_SECRET = 'G'.repeat(32);

interface Link {
  id: string;
  secret: string;
  segmenter_id: string | null;
  segmenter_name: string | null;
  segment_value: string | null;
  created_at: string;
}

/** The dialog over a fake API that keeps the links it makes (as the server does). */
function renderDialog() {
  const api = filtersApi();
  const share: Link[] = [];
  const group: { id: string; secret: string; created_at: string }[] = [];
  api.on('GET /business_reports/:id/share_secrets', () => ({ status: 200, body: { items: share } }));
  api.on('GET /business_reports/:id/group_secrets', () => ({ status: 200, body: { items: group } }));
  api.on('POST /business_reports/:id/share_secret', ({ body }) => {
    const { segmenter_id = null, segment_value = null } = (body ?? {}) as { segmenter_id?: string; segment_value?: string };
    const link = { id: `shr${share.length}`, secret: SHARE_SECRET, segmenter_id, segmenter_name: segmenter_id ? 'Plan' : null, segment_value, created_at: '2026-11-20T10:00:00Z' };
    share.unshift(link);
    return { status: 201, body: link };
  });
  api.on('POST /business_reports/:id/group_secret', () => {
    const link = { id: `grs${group.length}`, secret: GROUP_SECRET, created_at: '2026-11-20T10:00:00Z' };
    group.unshift(link);
    return { status: 201, body: link };
  });
  api.on('DELETE /business_reports/:id/share_secrets/:secretId', ({ params }) => {
    const at = share.findIndex((link) => link.id === params.secretId);
    if (at < 0) return apiErrors(404, { detail: 'Report not found' });
    share.splice(at, 1);
    return { status: 204 };
  });
  const view = renderWithProviders(<ShareDialog opened onClose={vi.fn()} reportId="rep1" secret={SECRET} />, { user: fullAccessUser, api });
  return { ...view, api, user: userEvent.setup({ delay: null }) };
}

const dialog = () => within(screen.getByRole('dialog', { name: 'Share report' }));

describe('ShareDialog', () => {
  it('says when there are no links yet', async () => {
    renderDialog();
    expect(await screen.findByText('No share links yet.')).toBeInTheDocument();
    expect(await screen.findByText('No group links yet.')).toBeInTheDocument();
  });

  it('makes a share link pinned to one segment value, and lists it with its segment', async () => {
    const { user, api } = renderDialog();
    await screen.findByText('No share links yet.');
    const create = dialog().getByRole('button', { name: 'Create share link' });

    await user.click(dialog().getByRole('switch', { name: 'Show only one segment' }));
    // Pinned, it needs a value first.
    expect(create).toBeDisabled();
    await user.click(dialog().getByRole('combobox', { name: 'Segment value' }));
    await user.click(await screen.findByRole('option', { name: 'Plan: Pro' }));
    expect(create).toBeEnabled();
    await user.click(create);

    const list = within(await screen.findByRole('list', { name: 'Share links' }));
    const input = await list.findByRole('textbox', { name: 'Link: Plan: Pro' });
    expect(input).toHaveValue(`${window.location.origin}/reports/shared/${SHARE_SECRET}`);
    expect(api.requestsTo('POST /business_reports/rep1/share_secret')[0]?.body).toEqual({ segmenter_id: 'customer_segment:seg_plan', segment_value: 'Pro' });
  });

  it('makes a plain share link and a group link, and copies a link with the clipboard toast', async () => {
    const { user, api } = renderDialog();
    await screen.findByText('No share links yet.');
    await user.click(dialog().getByRole('button', { name: 'Create share link' }));
    expect(api.requestsTo('POST /business_reports/rep1/share_secret')[0]?.body).toEqual({});
    expect(await within(await screen.findByRole('list', { name: 'Share links' })).findByText('All data')).toBeInTheDocument();

    await user.click(dialog().getByRole('button', { name: 'Create group link' }));
    const groupList = within(await screen.findByRole('list', { name: 'Group links' }));
    expect(await groupList.findByRole('textbox', { name: 'Link' })).toHaveValue(`${window.location.origin}/reports/group/${GROUP_SECRET}`);

    const writeText = vi.fn(async () => undefined);
    Object.defineProperty(navigator, 'clipboard', { value: { writeText }, configurable: true });
    await user.click(groupList.getByRole('button', { name: 'Copy link' }));
    expect(writeText).toHaveBeenCalledWith(`${window.location.origin}/reports/group/${GROUP_SECRET}`);
    expect(await screen.findByText('Link copied to clipboard')).toBeInTheDocument();
  });

  it('revokes a link after asking once more', async () => {
    const { user, api } = renderDialog();
    await screen.findByText('No share links yet.');
    await user.click(dialog().getByRole('button', { name: 'Create share link' }));
    const list = within(await screen.findByRole('list', { name: 'Share links' }));
    await list.findByRole('textbox', { name: 'Link: All data' });

    await user.click(list.getByRole('button', { name: 'Revoke link' }));
    expect(api.requestsTo('DELETE /business_reports/rep1/share_secrets/shr0')).toHaveLength(0);
    await user.click(await screen.findByRole('button', { name: 'Revoke' }));
    expect(await screen.findByText('No share links yet.')).toBeInTheDocument();
    expect(api.requestsTo('DELETE /business_reports/rep1/share_secrets/shr0')).toHaveLength(1);
  });

  it('toasts the spec’s messages when a link cannot be made', async () => {
    const { user, api } = renderDialog();
    api.on('POST /business_reports/:id/share_secret', () => apiErrors(500, { detail: 'boom' }));
    api.on('POST /business_reports/:id/group_secret', () => apiErrors(500, { detail: 'boom' }));
    await screen.findByText('No share links yet.');
    await user.click(dialog().getByRole('button', { name: 'Create share link' }));
    expect(await screen.findByText(SHARE_URL_FAILURE)).toBeInTheDocument();
    await user.click(dialog().getByRole('button', { name: 'Create group link' }));
    expect(await screen.findByText(GROUP_URL_FAILURE)).toBeInTheDocument();
    await waitFor(() => expect(screen.getByText('No share links yet.')).toBeInTheDocument());
  });
});
