import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useActorRef, useSelector } from '@xstate/react';
import { useState } from 'react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { InspectorProvider } from '../../../src/inspector/InspectorContext';
import { InspectorPanel } from '../../../src/inspector/InspectorPanel';
import { createInspectorRegistry } from '../../../src/inspector/registry';
import type { InspectorRegistry } from '../../../src/inspector/registry';
import { useInspection } from '../../../src/inspector/useInspection';
import { fullAccessUser, renderWithProviders } from '../renderApp';
import { apiErrors, createFakeApi } from '../support/fakeApi';
import type { FakeApi } from '../support/fakeApi';
import { csvFile, demoImportMachine, importIdOf } from './demoMachine';

const AUDIT_ROUTE = 'GET /subscriptions/csv_import/:id';

/** A view that runs the demo import machine, registered with the inspector as views do. */
function DemoImportView({ registry }: { registry: InspectorRegistry }) {
  const actor = useActorRef(demoImportMachine, { inspect: useInspection('demoImport', { importIdOf, registry }) });
  const value = useSelector(actor, (snapshot) => String(snapshot.value));
  const polls = useSelector(actor, (snapshot) => snapshot.context.polls);
  return (
    <div>
      <p>
        View state: {value}, polls: {polls}
      </p>
      <button type="button" onClick={() => actor.send({ type: 'upload', file: csvFile() })}>
        Upload
      </button>
      <button type="button" onClick={() => actor.send({ type: 'uploaded', importId: 'imp_7' })}>
        Uploaded
      </button>
      <button type="button" onClick={() => actor.send({ type: 'poll' })}>
        Poll
      </button>
    </div>
  );
}

function Harness({ registry, withView }: { registry: InspectorRegistry; withView: boolean }) {
  const [shown, setShown] = useState(withView);
  return (
    <InspectorProvider initiallyOpen registry={registry}>
      {shown ? <DemoImportView registry={registry} /> : null}
      {shown ? (
        <button type="button" onClick={() => setShown(false)}>
          Close view
        </button>
      ) : null}
      <InspectorPanel />
    </InspectorProvider>
  );
}

function renderInspector({ api = createFakeApi(), withView = true }: { api?: FakeApi; withView?: boolean } = {}) {
  const user = userEvent.setup({ delay: null });
  const registry = createInspectorRegistry();
  const view = renderWithProviders(<Harness registry={registry} withView={withView} />, { user: fullAccessUser, api });
  return { ...view, user, registry };
}

const panel = () => within(screen.getByRole('dialog', { name: 'State inspector' }));
const actorButton = (name: RegExp) => within(panel().getByRole('navigation', { name: 'Actors' })).getByRole('button', { name });
const shownState = () => panel().getByRole('region', { name: 'State' }).querySelector('pre')?.textContent;
const shownContext = () => JSON.parse(panel().getByRole('region', { name: 'Context' }).querySelector('pre')?.textContent ?? 'null') as unknown;
const stepText = () => panel().getByText(/^Snapshot \d+ of \d+/).textContent;

async function uploadAndPoll(user: ReturnType<typeof userEvent.setup>, polls: number) {
  await user.click(screen.getByRole('button', { name: 'Upload' }));
  await user.click(screen.getByRole('button', { name: 'Uploaded' }));
  for (let k = 0; k < polls; k += 1) await user.click(screen.getByRole('button', { name: 'Poll' }));
}

function auditAnswer() {
  return {
    status: 200,
    body: {
      id: 'imp_7',
      status: 'in_progress',
      progress: 40,
      file_name: 'subscriptions.csv',
      total_rows: 2,
      delimiter: ',',
      encoding: 'utf-8',
      result: { status: 'in_progress', success_count: 0, failure_count: 0, failures: [] },
      validation_failures: [],
      audit_log: [
        { event: 'uploaded', status: 'uploaded', details: {}, created_at: '2024-05-01T10:00:00.000Z' },
        { event: 'job_started', status: 'in_progress', details: { worker: 'w-2', attempt: 1 }, created_at: '2024-05-01T10:00:05.000Z' },
      ],
      created_at: '2024-05-01T10:00:00.000Z',
      finished_at: null,
    },
  };
}

/** Captures what 'Export…' downloads. */
function captureDownloads() {
  const blobs: Blob[] = [];
  const names: string[] = [];
  URL.createObjectURL = vi.fn((blob: Blob) => {
    blobs.push(blob);
    return `blob:trace-${blobs.length}`;
  });
  URL.revokeObjectURL = vi.fn();
  vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
    names.push(this.download);
  });
  return { blobs, names, json: async (k = 0) => JSON.parse(await (blobs[k] as Blob).text()) as Record<string, unknown> };
}

const fileInput = () => document.querySelector<HTMLInputElement>('input[type="file"]') as HTMLInputElement;

describe('state inspector panel', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['Date'], now: Date.UTC(2024, 4, 1, 10, 0, 0) });
  });
  afterEach(() => {
    vi.useRealTimers();
    vi.restoreAllMocks();
  });

  it('lists the actors with a live or ended badge and their current state', async () => {
    const { user, registry } = renderInspector();
    await uploadAndPoll(user, 1);

    const demo = actorButton(/demoImport#1/);
    expect(demo).toHaveTextContent('polling');
    expect(demo).toHaveTextContent('live');
    // React's double effects leave one actor, not a second never-started one.
    expect(registry.list()).toHaveLength(1);

    await user.click(screen.getByRole('button', { name: 'Close view' }));
    expect(actorButton(/demoImport#1/)).toHaveTextContent('ended');
  });

  it('shows the current state, context and timestamped event log of the selected actor', async () => {
    const { user } = renderInspector();
    await uploadAndPoll(user, 0);
    await user.click(actorButton(/demoImport#1/));

    expect(shownState()).toBe('"polling"');
    expect(shownContext()).toEqual({ importId: 'imp_7', polls: 0, file: { file: 'subscriptions.csv', size: 25, type: 'text/csv' } });
    const rows = within(panel().getByRole('table', { name: 'Event log entries' })).getAllByRole('row').slice(1);
    expect(rows.map((row) => within(row).getAllByRole('cell').slice(1, 4).map((cell) => cell.textContent))).toEqual([
      ['10:00:00.000', 'xstate.init', 'idle'],
      ['10:00:00.000', 'upload', 'uploading'],
      ['10:00:00.000', 'uploaded', 'polling'],
    ]);
    // A payload is collapsed until asked for.
    expect(within(rows[2] as HTMLElement).queryByText(/"importId"/)).not.toBeInTheDocument();
    await user.click(within(rows[2] as HTMLElement).getByRole('button', { name: /Show payload of uploaded/ }));
    expect(within(rows[2] as HTMLElement).getByText(/"importId": "imp_7"/)).toBeInTheDocument();
  });

  it('steps back and forward with the buttons, never touching the live actor', async () => {
    const { user } = renderInspector();
    await uploadAndPoll(user, 2);
    expect(stepText()).toMatch(/^Snapshot 5 of 5 · .* after poll$/);

    await user.click(panel().getByRole('button', { name: 'Back' }));
    await user.click(panel().getByRole('button', { name: 'Back' }));
    await user.click(panel().getByRole('button', { name: 'Back' }));
    expect(stepText()).toMatch(/^Snapshot 2 of 5 · .* after upload$/);
    expect(shownState()).toBe('"uploading"');
    expect(shownContext()).toMatchObject({ importId: null, polls: 0 });
    expect(panel().getByRole('slider', { name: /Snapshot/ })).toHaveAttribute('aria-valuenow', '1');
    expect(panel().getByRole('row', { current: 'step' })).toHaveTextContent('upload');
    expect(screen.getByText('View state: polling, polls: 2')).toBeInTheDocument();

    // The live actor moves on; the panel stays where it was stepped to.
    await user.click(screen.getByRole('button', { name: 'Poll' }));
    expect(stepText()).toMatch(/^Snapshot 2 of 6/);

    await user.click(panel().getByRole('button', { name: 'Forward' }));
    expect(shownState()).toBe('"polling"');
    expect(shownContext()).toMatchObject({ importId: 'imp_7', polls: 0 });
    await user.click(panel().getByRole('button', { name: 'Show snapshot 6' }));
    expect(shownContext()).toMatchObject({ polls: 3 });
    expect(panel().getByRole('button', { name: 'Forward' })).toBeDisabled();
  });

  it('steps with the arrow keys while open', async () => {
    const { user } = renderInspector();
    await uploadAndPoll(user, 1);
    await user.click(actorButton(/demoImport#1/));

    await user.keyboard('{ArrowLeft}{ArrowLeft}{ArrowLeft}');
    expect(stepText()).toMatch(/^Snapshot 1 of 4 · .* after xstate.init$/);
    expect(shownState()).toBe('"idle"');
    await user.keyboard('{ArrowLeft}');
    expect(stepText()).toMatch(/^Snapshot 1 of 4/);
    await user.keyboard('{ArrowRight}{ArrowRight}');
    expect(shownState()).toBe('"polling"');
    expect(shownContext()).toMatchObject({ polls: 0 });
    await user.keyboard('{ArrowRight}{ArrowRight}');
    expect(stepText()).toMatch(/^Snapshot 4 of 4/);
  });

  it('exports a trace and imports it back, replayed with no server', async () => {
    const downloads = captureDownloads();
    const { user, unmount } = renderInspector();
    await uploadAndPoll(user, 1);
    await user.click(panel().getByRole('button', { name: 'Export trace' }));

    expect(downloads.names).toEqual(['subscope-trace-demoImport-1-2024-05-01T10-00-00Z.json']);
    const exported = await downloads.json();
    expect(exported).toMatchObject({ version: 1, exportedAt: '2024-05-01T10:00:00.000Z', actors: [{ id: 'demoImport#1', importId: 'imp_7', live: true }] });
    expect((exported.actors as { trace: unknown[] }[])[0]?.trace).toHaveLength(4);

    await user.click(panel().getByRole('button', { name: 'Export all' }));
    expect(await downloads.json(1)).toMatchObject({ version: 1, actors: [{ id: 'demoImport#1' }] });

    // Elsewhere: a fresh page with no actors and a server that answers nothing.
    const text = await (downloads.blobs[0] as Blob).text();
    unmount();
    const offline = createFakeApi();
    const replay = renderInspector({ api: offline, withView: false });
    expect(panel().getByText(/No machine actors yet/)).toBeInTheDocument();

    await replay.user.upload(fileInput(), new File([text], 'trace.json', { type: 'application/json' }));

    const loaded = await waitFor(() => actorButton(/demoImport#1 \(loaded\)/));
    expect(loaded).toHaveTextContent('loaded');
    expect(panel().getByRole('status')).toHaveTextContent('Loaded 1 actor from trace.json');
    expect(stepText()).toMatch(/^Snapshot 4 of 4 · .* after poll$/);
    await replay.user.keyboard('{ArrowLeft}{ArrowLeft}');
    expect(shownState()).toBe('"uploading"');
    expect(panel().getByRole('heading', { name: 'Server audit log' })).toBeInTheDocument();
    expect(panel().getByText('The trace file has no audit log of this import.')).toBeInTheDocument();
    expect(offline.requests).toEqual([]);
  });

  it('carries the fetched audit log in an export, shown from the file without a server', async () => {
    const downloads = captureDownloads();
    const api = createFakeApi({ [AUDIT_ROUTE]: auditAnswer });
    const { user, unmount } = renderInspector({ api });
    await uploadAndPoll(user, 0);
    await panel().findByRole('table', { name: 'Server audit log entries' });
    await user.click(panel().getByRole('button', { name: 'Export trace' }));
    const text = await (downloads.blobs[0] as Blob).text();
    unmount();

    const offline = createFakeApi();
    const replay = renderInspector({ api: offline, withView: false });
    await replay.user.upload(fileInput(), new File([text], 'trace.json', { type: 'application/json' }));

    const entries = await panel().findByRole('table', { name: 'Server audit log entries' });
    expect(within(entries).getByText('job_started')).toBeInTheDocument();
    expect(panel().getByText(/server status in_progress \(40%\).*\(from the trace file\)/)).toBeInTheDocument();
    expect(offline.requests).toEqual([]);
  });

  it('refuses a malformed trace file with a message', async () => {
    const { user, registry } = renderInspector({ withView: false });

    await user.upload(fileInput(), new File(['{"version": 1, "actors": ['], 'broken.json', { type: 'application/json' }));
    expect(await panel().findByRole('alert')).toHaveTextContent('The trace could not be importedThe file is not a trace: it is not valid JSON.');

    const wrongShape = { version: 1, exportedAt: '2024-05-01T10:00:00.000Z', actors: [{ name: 'csvImport', startedAt: 'yesterday', trace: [] }] };
    await user.upload(fileInput(), new File([JSON.stringify(wrongShape)], 'wrong.json', { type: 'application/json' }));
    await waitFor(() => expect(panel().getByRole('alert')).toHaveTextContent(/actors\[0\]\.startedAt: expected a number/));
    expect(registry.list()).toEqual([]);
  });

  it("fetches and shows the server audit log of an import actor's import", async () => {
    const api = createFakeApi();
    api.hold(AUDIT_ROUTE);
    const { user } = renderInspector({ api });
    await uploadAndPoll(user, 0);

    expect(await panel().findByLabelText('Loading the server audit log')).toBeInTheDocument();
    await waitFor(() => expect(api.waiting(AUDIT_ROUTE)).toBe(1));
    act(() => api.release(AUDIT_ROUTE, auditAnswer()));

    const entries = await panel().findByRole('table', { name: 'Server audit log entries' });
    const rows = within(entries).getAllByRole('row').slice(1);
    expect(rows.map((row) => within(row).getAllByRole('cell').slice(0, 3).map((cell) => cell.textContent))).toEqual([
      ['2024-05-01 10:00:00', 'uploaded', 'uploaded'],
      ['2024-05-01 10:00:05', 'job_started', 'in_progress'],
    ]);
    expect(panel().getByText(/Import imp_7 · server status in_progress \(40%\)/)).toBeInTheDocument();
    await user.click(within(rows[1] as HTMLElement).getByRole('button', { name: /Show details of job_started/ }));
    expect(within(rows[1] as HTMLElement).getByText(/"worker": "w-2"/)).toBeInTheDocument();
    expect(api.requests.filter((request) => !request.signal.aborted).map((request) => request.path)).toEqual(['/subscriptions/csv_import/imp_7']);
  });

  it('shows an error when the audit log cannot be fetched, and fetches again on Refresh', async () => {
    const api = createFakeApi({ [AUDIT_ROUTE]: () => apiErrors(404, { detail: 'Import not found' }) });
    const { user } = renderInspector({ api });
    await uploadAndPoll(user, 0);

    expect(await panel().findByRole('alert')).toHaveTextContent('The audit log could not be loadedImport not found (HTTP 404)');
    api.on(AUDIT_ROUTE, auditAnswer);
    await user.click(panel().getByRole('button', { name: 'Refresh' }));
    expect(await panel().findByRole('table', { name: 'Server audit log entries' })).toBeInTheDocument();
    expect(panel().queryByRole('alert')).not.toBeInTheDocument();
  });
});
