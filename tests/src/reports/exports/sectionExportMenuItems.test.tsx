import { Button, Menu } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { act, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createApiClient } from '../../../../src/api/client';
import type { ChannelHandlers, ChannelParams, LiveChannels } from '../../../../src/cable/liveChannels';
import { inspectorRegistry } from '../../../../src/inspector/registry';
import { SectionExportMenuItems } from '../../../../src/reports/exports/SectionExportMenuItems';
import { apiErrors, FAKE_API_BASE_URL, type FakeAnswer, type FakeApi } from '../../support/fakeApi';
import { defaultFakeApi, fullAccessUser, renderWithProviders, sharedReportOnlyUser } from '../../renderApp';
import { mrrSection } from '../charts/sectionFixtures';

const CSV = '\uFEFFPeriod,Start date,MRR (USD)\r\n2025-01,2025-01-01,1000\r\n';
const TOKEN = 'jwt.of.ada';

interface Sent {
  method: string;
  url: URL;
  authorization: string | null;
}

/** The fake API's client for the JSON calls, and raw answers (a file) for the export calls. */
function exportApi(answers: { data?: () => Response; details?: () => FakeAnswer; status?: () => FakeAnswer }) {
  const sent: Sent[] = [];
  const base: FakeApi = defaultFakeApi(fullAccessUser);
  const json = (answer: FakeAnswer) => new Response(answer.body === undefined ? null : JSON.stringify(answer.body), { status: answer.status, headers: { 'Content-Type': 'application/json' } });
  const client = createApiClient({
    baseUrl: FAKE_API_BASE_URL,
    tokens: { get: () => TOKEN },
    fetch: async (request) => {
      const url = new URL(request.url);
      sent.push({ method: request.method, url, authorization: request.headers.get('Authorization') });
      if (url.pathname.endsWith('/export_data')) return answers.data?.() ?? json(apiErrors(500, { detail: 'Something went wrong' }));
      if (url.pathname.endsWith('/export_details')) return json(answers.details?.() ?? apiErrors(500, { detail: 'Something went wrong' }));
      if (url.pathname.includes('/section_exports/')) return json(answers.status?.() ?? { status: 404 });
      return json({ status: 404 });
    },
  });
  return { api: { ...base, client }, sent };
}

/** Live channels the test speaks on. */
function fakeChannels() {
  const subscriptions: { params: ChannelParams; handlers: ChannelHandlers; ended: boolean }[] = [];
  const channels: LiveChannels = {
    subscribe(params, handlers) {
      const entry = { params, handlers, ended: false };
      subscriptions.push(entry);
      return () => {
        entry.ended = true;
      };
    },
    close() {},
  };
  return { channels, subscriptions, say: (message: unknown) => act(() => subscriptions.filter((s) => !s.ended).forEach((s) => s.handlers.received?.(message))) };
}

function renderMenu(options: { api: FakeApi; channels: LiveChannels; user?: typeof fullAccessUser; section?: Parameters<typeof mrrSection>[0] }) {
  return renderWithProviders(
    <Menu opened withinPortal={false}>
      <Menu.Target>
        <Button>Section menu</Button>
      </Menu.Target>
      <Menu.Dropdown>
        <SectionExportMenuItems section={mrrSection({ id: 'sec_mrr', ...options.section })} channels={options.channels} />
      </Menu.Dropdown>
    </Menu>,
    { user: options.user ?? fullAccessUser, api: options.api },
  );
}

let saved: { name: string; text: Promise<string> }[];

beforeEach(() => {
  saved = [];
  // jsdom has no object URLs: record what would be downloaded.
  URL.createObjectURL = vi.fn((blob: Blob) => {
    // The bytes as sent, byte order mark included.
    saved.push({ name: '', text: blob.arrayBuffer().then((bytes) => new TextDecoder('utf-8', { ignoreBOM: true }).decode(bytes)) });
    return 'blob:export';
  });
  URL.revokeObjectURL = vi.fn();
  vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
    const last = saved.at(-1);
    if (last) last.name = this.download;
  });
});
afterEach(() => {
  vi.restoreAllMocks();
});

describe('SectionExportMenuItems', () => {
  it('offers the exports to a full user and none to a shared-report viewer', () => {
    const { channels } = fakeChannels();
    const { unmount } = renderMenu({ api: exportApi({}).api, channels });
    expect(screen.getAllByRole('menuitem').map((item) => item.textContent)).toEqual([
      'Export data (CSV)',
      'Export data (XLSX)',
      'Export details',
      'Export subscriptions per customer',
      'Export units per customer',
    ]);
    for (const item of screen.getAllByRole('menuitem')) expect(item).toBeEnabled();
    unmount();
    renderMenu({ api: exportApi({}).api, channels: fakeChannels().channels, user: sharedReportOnlyUser });
    expect(screen.queryByRole('menuitem', { name: /Export/ })).toBeNull();
  });

  it('downloads the section’s data as CSV with the user’s token, under the server’s file name', async () => {
    const { api, sent } = exportApi({ data: () => new Response(CSV, { headers: { 'Content-Type': 'text/csv; charset=utf-8', 'Content-Disposition': 'attachment; filename="mrr-data.csv"' } }) });
    renderMenu({ api, channels: fakeChannels().channels });
    await userEvent.click(screen.getByRole('menuitem', { name: 'Export data (CSV)' }));
    await waitFor(() => expect(saved).toHaveLength(1));
    expect(sent[0]).toMatchObject({ method: 'GET', authorization: `Bearer ${TOKEN}` });
    expect(sent[0]?.url.pathname).toBe('/api/v11/business_report/sections/sec_mrr/export_data');
    expect(sent[0]?.url.searchParams.get('format')).toBe('csv');
    expect(saved[0]?.name).toBe('mrr-data.csv');
    expect(await saved[0]?.text).toBe(CSV);
  });

  it('asks for XLSX, and says so when the download fails', async () => {
    const { api, sent } = exportApi({ data: () => new Response(JSON.stringify(apiErrors(500, { detail: 'Something went wrong' }).body), { status: 500 }) });
    renderMenu({ api, channels: fakeChannels().channels });
    await userEvent.click(screen.getByRole('menuitem', { name: 'Export data (XLSX)' }));
    expect(await screen.findByText('We could not export this section, please try again later')).toBeInTheDocument();
    expect(sent[0]?.url.searchParams.get('format')).toBe('xlsx');
    expect(saved).toEqual([]);
  });

  it('starts the details export, says it is in progress, and shows the Download action when the channel says it is done', async () => {
    const url = '/api/v11/section_exports/sxp1/download?key=k';
    const { api, sent } = exportApi({ details: () => ({ status: 202, body: { id: 'sxp1', status: 'in_progress', url: null, file_name: null } }) });
    const live = fakeChannels();
    renderMenu({ api, channels: live.channels });
    await userEvent.click(screen.getByRole('menuitem', { name: 'Export details' }));
    expect(await screen.findByText('Your export is in progress. We will notify you once completed')).toBeInTheDocument();
    const post = sent.find((request) => request.method === 'POST');
    expect(post?.url.pathname).toBe('/api/v11/business_report/sections/sec_mrr/export_details');
    // The section's whole range, each row's money.
    expect(Object.fromEntries(post?.url.searchParams ?? [])).toEqual({ start_date: '2025-01-01', end_date: '2025-03-28', variant: 'money' });
    expect(screen.getByRole('menuitem', { name: 'Export details' })).toBeDisabled();
    await waitFor(() => expect(live.subscriptions.map((s) => s.params)).toEqual([{ channel: 'SectionDetailsExportChannel', id: 'sxp1' }]));

    // Another export's message, or one still running, changes nothing.
    live.say({ id: 'sxp_other', status: 'done', url: '/elsewhere', file_name: 'other.csv' });
    live.say({ id: 'sxp1', status: 'in_progress', url: null, file_name: null });
    expect(screen.queryByText(/Your export is ready/)).toBeNull();

    live.say({ id: 'sxp1', status: 'done', url, file_name: 'mrr-details.csv' });
    expect(await screen.findByText('Your export is ready: mrr-details.csv')).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Download' })).toHaveAttribute('href', url);
    expect(live.subscriptions[0]?.ended).toBe(true);
    expect(screen.getByRole('menuitem', { name: 'Export details' })).toBeEnabled();
    // The machine is in the state inspector.
    expect(inspectorRegistry.list().some((actor) => actor.name === 'sectionExport' && actor.live)).toBe(true);
  });

  it('exports each customer’s subscriptions or units where the section has them', async () => {
    const { api, sent } = exportApi({ details: () => ({ status: 202, body: { id: 'sxp3', status: 'in_progress', url: null, file_name: null } }) });
    const live = fakeChannels();
    const view = renderMenu({ api, channels: live.channels });
    await userEvent.click(screen.getByRole('menuitem', { name: 'Export units per customer' }));
    expect(await screen.findByText('Your export is in progress. We will notify you once completed')).toBeInTheDocument();
    const post = sent.find((request) => request.method === 'POST');
    expect(Object.fromEntries(post?.url.searchParams ?? [])).toEqual({ start_date: '2025-01-01', end_date: '2025-03-28', variant: 'units_sold' });
    expect(screen.getByRole('menuitem', { name: 'Export subscriptions per customer' })).toBeDisabled();
    view.unmount();

    // MRR movements list customers but not their units; costs list no customers at all.
    renderMenu({ api, channels: fakeChannels().channels, section: { definition_id: 'mrr_movements' } });
    expect(screen.getByRole('menuitem', { name: 'Export subscriptions per customer' })).toBeInTheDocument();
    expect(screen.queryByRole('menuitem', { name: 'Export units per customer' })).toBeNull();
  });

  it('offers no per-customer exports for costs', async () => {
    const { api } = exportApi({});
    renderMenu({ api, channels: fakeChannels().channels, section: { definition_id: 'costs', underlying_data: 'costs' } });
    expect(screen.getByRole('menuitem', { name: 'Export details' })).toBeInTheDocument();
    expect(screen.queryByRole('menuitem', { name: 'Export subscriptions per customer' })).toBeNull();
    expect(screen.queryByRole('menuitem', { name: 'Export units per customer' })).toBeNull();
  });

  it('says the export could not start when the server refuses it, and when it fails on the server', async () => {
    let accept = false;
    const { api } = exportApi({ details: () => (accept ? { status: 202, body: { id: 'sxp2', status: 'in_progress', url: null, file_name: null } } : apiErrors(422, { detail: 'The section has not been calculated yet' })) });
    const live = fakeChannels();
    renderMenu({ api, channels: live.channels });
    await userEvent.click(screen.getByRole('menuitem', { name: 'Export details' }));
    expect(await screen.findByText('We could not start your export, please try again later')).toBeInTheDocument();
    // Toasts stack: clear them to see the next one.
    act(() => notifications.clean());
    accept = true;
    await userEvent.click(screen.getByRole('menuitem', { name: 'Export details' }));
    expect(await screen.findByText('Your export is in progress. We will notify you once completed')).toBeInTheDocument();
    await waitFor(() => expect(live.subscriptions).toHaveLength(1));
    live.say({ id: 'sxp2', status: 'failed', url: null, file_name: null });
    expect(await screen.findByText('We could not start your export, please try again later')).toBeInTheDocument();
    expect(screen.queryByRole('link', { name: 'Download' })).toBeNull();
  });
});
