import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { UserEvent } from '@testing-library/user-event';
import { beforeEach, describe, expect, it } from 'vitest';
import { SimulatedClock } from 'xstate';
import { TOKEN_STORAGE_KEY } from '../../../src/api/tokenStore';
import { SegmentsImport } from '../../../src/imports/SegmentsImport';
import { inspectorRegistry } from '../../../src/inspector/registry';
import { apiDraftAnswer, apiSegmentsImportView } from '../../machines/mappingWizard/segmentsImportApiAnswers';
import { MODEL_SEGMENT_ID, modelPreview, modelStatuses } from '../../machines/mappingWizard/segmentsImportModel';
import { createFakeLiveChannels } from '../cable/fakeLiveChannels';
import type { FakeLiveChannels } from '../cable/fakeLiveChannels';
import { defaultFakeApi, fullAccessUser, renderApp, renderWithProviders } from '../renderApp';
import { apiErrors, createFakeApi } from '../support/fakeApi';
import type { FakeApi } from '../support/fakeApi';

/** What the attribute values import page shows and sends, step by step, against a fake API. */

const DRAFT = 'POST /segments_importer/draft';
const FINALIZE = 'POST /segments_importer/finalize';
const STATUS = 'GET /segments_importer/:id';
const STORED_TOKEN = 'stored.jwt.token';

const CUSTOMER_COLUMN_REQUIRED = 'One of the columns must be mapped to Customer ID';
const MAPPING_INCOMPLETE = 'Looks like import mapping is incomplete - make sure you map your columns correctly';

const twoColumnPreview = {
  ...modelPreview,
  importId: 'simp_two',
  totalRows: 2,
  columns: 2,
  rows: [
    ['cus_001', 'Enterprise'],
    ['cus_002', 'Pro'],
  ],
};

function fakeServer(preview = modelPreview): FakeApi {
  return createFakeApi({
    [DRAFT]: () => ({ status: 200, body: apiDraftAnswer(preview) }),
    [FINALIZE]: () => ({ status: 200, body: apiSegmentsImportView(preview.importId, modelStatuses.queued) }),
    [STATUS]: () => ({ status: 200, body: apiSegmentsImportView(preview.importId, modelStatuses.running) }),
  });
}

interface Page {
  user: UserEvent;
  api: FakeApi;
  live: FakeLiveChannels;
  clock: SimulatedClock;
  container: HTMLElement;
}

function renderImport(api: FakeApi = fakeServer()): Page {
  const clock = new SimulatedClock();
  const live = createFakeLiveChannels();
  const { container } = renderWithProviders(<SegmentsImport segmentId={MODEL_SEGMENT_ID} clock={clock} channels={live.channels} />, {
    user: fullAccessUser,
    api,
  });
  return { user: userEvent.setup({ applyAccept: false, delay: null }), api, live, clock, container };
}

const csv = () => new File(['Customer ID,Company,Plan\n'], 'plans.csv', { type: 'text/csv' });

async function choose(page: Page, file: File) {
  const input = page.container.querySelector<HTMLInputElement>('input[type="file"]');
  if (!input) throw new Error('no file input');
  await page.user.upload(input, file);
}

async function uploadToPreview(page: Page) {
  await choose(page, csv());
  await page.user.click(screen.getByRole('button', { name: 'Upload' }));
  return screen.findByRole('table', { name: 'Preview of the first rows' });
}

const columnSelect = (column: number) => screen.getByRole('combobox', { name: `Role of column ${column}` });

async function pick(page: Page, column: number, label: string) {
  await page.user.click(columnSelect(column));
  await page.user.click(await screen.findByRole('option', { name: label }));
}

beforeEach(() => {
  inspectorRegistry.clear();
});

describe('the attribute values import page', () => {
  it('is the page of /import-segments?segment=<id>, starting at the upload step', async () => {
    const { container } = renderApp({ path: `/import-segments?segment=${MODEL_SEGMENT_ID}`, user: fullAccessUser });

    expect(await screen.findByRole('heading', { level: 1, name: 'Import attribute values' })).toBeInTheDocument();
    expect(screen.getByRole('combobox', { name: 'Attribute' })).toBeInTheDocument();
    const steps = within(screen.getByLabelText('Import steps'));
    for (const [label, description] of [
      ['Upload', 'Your .csv file'],
      ['Map columns', 'Customer ID and value'],
      ['Import', 'Save the values'],
    ]) {
      expect(steps.getByRole('button', { name: new RegExp(`${label}${description}`) })).toBeInTheDocument();
    }
    expect(screen.getByText('Choose a .csv file')).toBeInTheDocument();
    expect(container.querySelector('input[type="file"]')).toHaveAttribute('accept', '.csv');
  });

  it('asks for the attribute when the address names none (tests/src/pages/ImportSegmentsPage.test.tsx: the picker)', async () => {
    const { container } = renderApp({ path: '/import-segments', user: fullAccessUser, api: defaultFakeApi() });

    expect(await screen.findByRole('heading', { level: 1, name: 'Import attribute values' })).toBeInTheDocument();
    expect(screen.getByRole('heading', { level: 2, name: 'Choose an attribute' })).toBeInTheDocument();
    expect(container.querySelector('input[type="file"]')).toBeNull();
  });

  it('takes a blank ?segment= for no attribute', async () => {
    renderApp({ path: '/import-segments?segment=%20', user: fullAccessUser });
    expect(await screen.findByRole('heading', { level: 2, name: 'Choose an attribute' })).toBeInTheDocument();
  });

  it("uploads the file in the field 'csv' with the signed-in user's token, showing a skeleton meanwhile", async () => {
    window.localStorage.setItem(TOKEN_STORAGE_KEY, STORED_TOKEN);
    const api = fakeServer();
    api.hold(DRAFT);
    const page = renderImport(api);
    await choose(page, csv());
    await page.user.click(screen.getByRole('button', { name: 'Upload' }));

    expect(await screen.findByLabelText('Loading preview')).toBeInTheDocument();
    await waitFor(() => expect(api.waiting(DRAFT)).toBe(1));
    const [request] = api.requestsTo(DRAFT);
    expect(request?.headers.get('Authorization')).toBe(`Bearer ${STORED_TOKEN}`);
    expect(request?.headers.get('Content-Type')).toMatch(/^multipart\/form-data; boundary=/);
    expect(String(request?.body)).toContain('name="csv"');

    api.release(DRAFT, { status: 200, body: apiDraftAnswer(modelPreview) });
    expect(await screen.findByRole('table', { name: 'Preview of the first rows' })).toBeInTheDocument();
    expect(screen.queryByLabelText('Loading preview')).not.toBeInTheDocument();
  });

  it('refuses a file that is not a .csv without uploading it', async () => {
    const page = renderImport();
    await choose(page, new File(['%PDF'], 'plans.pdf', { type: 'application/pdf' }));
    await page.user.click(screen.getByRole('button', { name: 'Upload' }));

    expect(await screen.findByText('Only .csv files can be imported')).toBeInTheDocument();
    expect(page.api.requests).toEqual([]);
  });

  it("shows the server's reason for a refused upload and keeps the file for another try", async () => {
    const api = fakeServer();
    api.on(DRAFT, () => apiErrors(413, { pointer: '/body/csv', detail: 'The file is larger than 200 MB' }));
    const page = renderImport(api);
    await choose(page, csv());
    await page.user.click(screen.getByRole('button', { name: 'Upload' }));

    const alert = await screen.findByRole('alert');
    expect(within(alert).getByText('The file could not be uploaded')).toBeInTheDocument();
    expect(within(alert).getByText('The file is larger than 200 MB')).toBeInTheDocument();
    expect(screen.getByText('plans.csv')).toBeInTheDocument();

    api.on(DRAFT, () => ({ status: 200, body: apiDraftAnswer(modelPreview) }));
    await page.user.click(screen.getByRole('button', { name: 'Upload' }));
    expect(await screen.findByRole('table', { name: 'Preview of the first rows' })).toBeInTheDocument();
  });

  it("shows the spec's message when the upload fails without a reason", async () => {
    const api = fakeServer();
    api.on(DRAFT, () => ({ status: 500 }));
    const page = renderImport(api);
    await choose(page, csv());
    await page.user.click(screen.getByRole('button', { name: 'Upload' }));

    expect(await screen.findByText('Something went wrong with uploading csv file')).toBeInTheDocument();
  });
});

describe('the attribute values import page: mapping', () => {
  it("previews the first rows under a role menu per column: 'Customer ID' on the first, the rest 'Not mapped'", async () => {
    const page = renderImport();
    const table = await uploadToPreview(page);

    expect(within(table).getByText('cus_001')).toBeInTheDocument();
    expect(within(table).getByText('Enterprise')).toBeInTheDocument();
    expect([1, 2, 3].map((column) => (columnSelect(column) as HTMLInputElement).value)).toEqual(['Customer ID', 'Not mapped', 'Not mapped']);
    expect(screen.queryByRole('combobox', { name: 'Role of column 4' })).not.toBeInTheDocument();
    expect(screen.getByText('Map the columns of plans.csv')).toBeInTheDocument();
    expect(screen.getByRole('listitem', { name: 'Customer ID: mapped' })).toBeInTheDocument();
    expect(screen.getByRole('listitem', { name: 'Value: not mapped' })).toBeInTheDocument();
  });

  it("offers 'Not mapped', 'Customer ID' and 'Value' for each column", async () => {
    const page = renderImport();
    await uploadToPreview(page);
    await page.user.click(columnSelect(2));

    const listbox = await screen.findByRole('listbox');
    expect(within(listbox).getAllByRole('option').map((option) => option.textContent)).toEqual(['Not mapped', 'Customer ID', 'Value']);
  });

  it('maps a two-column file completely, and keeps a first row that is data', async () => {
    const page = renderImport(fakeServer(twoColumnPreview));
    await uploadToPreview(page);

    expect([1, 2].map((column) => (columnSelect(column) as HTMLInputElement).value)).toEqual(['Customer ID', 'Value']);
    expect(screen.getByRole('switch', { name: /Skip headers/ })).not.toBeChecked();
    expect(screen.getByRole('button', { name: 'Import 2 rows' })).toBeInTheDocument();
  });

  it('skips the header row by default when the first row looks like one, and counts the rows to import', async () => {
    const page = renderImport();
    await uploadToPreview(page);

    const skip = screen.getByRole('switch', { name: /Skip headers/ });
    expect(skip).toBeChecked();
    expect(screen.getByRole('row', { name: 'Header row, skipped' })).toBeInTheDocument();
    expect(screen.getByText('Skipped')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Import 2 rows' })).toBeInTheDocument();

    await page.user.click(skip);
    expect(skip).not.toBeChecked();
    expect(screen.queryByText('Skipped')).not.toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Import 3 rows' })).toBeInTheDocument();
  });

  it("keeps only one value column at a time: the column it was on becomes 'Not mapped'", async () => {
    const page = renderImport();
    await uploadToPreview(page);
    await pick(page, 2, 'Value');
    await pick(page, 3, 'Value');

    expect(columnSelect(2)).toHaveValue('Not mapped');
    expect(columnSelect(3)).toHaveValue('Value');
  });

  it("refuses to import without a value column: 'Looks like import mapping is incomplete …'", async () => {
    const page = renderImport();
    await uploadToPreview(page);
    await page.user.click(screen.getByRole('button', { name: 'Import 2 rows' }));

    const alert = await screen.findByRole('alert');
    expect(within(alert).getByText(MAPPING_INCOMPLETE)).toBeInTheDocument();
    expect(within(alert).getByText('The values cannot be imported yet')).toBeInTheDocument();
    expect(page.api.requestsTo('POST /segments_importer/finalize')).toEqual([]);

    // A new pick clears the message.
    await pick(page, 3, 'Value');
    expect(screen.queryByText(MAPPING_INCOMPLETE)).not.toBeInTheDocument();
  });

  it("refuses to import without a Customer ID column: 'One of the columns must be mapped to Customer ID'", async () => {
    const page = renderImport();
    await uploadToPreview(page);
    await pick(page, 1, 'Value');

    expect(screen.getByRole('listitem', { name: 'Customer ID: not mapped' })).toBeInTheDocument();
    await page.user.click(screen.getByRole('button', { name: 'Import 2 rows' }));

    expect(await screen.findByText(CUSTOMER_COLUMN_REQUIRED)).toBeInTheDocument();
    expect(screen.queryByText(MAPPING_INCOMPLETE)).not.toBeInTheDocument();
    expect(page.api.requestsTo('POST /segments_importer/finalize')).toEqual([]);
  });

  it('sends the two columns, the skip-headers choice and the attribute', async () => {
    const page = renderImport();
    await uploadToPreview(page);
    await pick(page, 2, 'Customer ID');
    await pick(page, 3, 'Value');
    await page.user.click(screen.getByRole('switch', { name: /Skip headers/ }));
    await page.user.click(screen.getByRole('button', { name: 'Import 3 rows' }));

    await waitFor(() => expect(page.api.requestsTo('POST /segments_importer/finalize')).toHaveLength(1));
    expect(page.api.requestsTo('POST /segments_importer/finalize')[0]?.body).toEqual({
      import_id: 'simp_model',
      public_id_column_index: 1,
      segment_column_index: 2,
      skip_headers: false,
      customer_segment_id: MODEL_SEGMENT_ID,
    });
  });

  it.each([
    [422, CUSTOMER_COLUMN_REQUIRED],
    [422, MAPPING_INCOMPLETE],
    [404, 'Customer segment not found'],
  ])("keeps what was chosen when the server refuses the mapping (%i), with the server's reason", async (status, detail) => {
    const api = fakeServer();
    api.on(FINALIZE, () => apiErrors(status, { pointer: '/segment_column_index', detail }));
    const page = renderImport(api);
    await uploadToPreview(page);
    await pick(page, 3, 'Value');
    await page.user.click(screen.getByRole('switch', { name: /Skip headers/ }));
    await page.user.click(screen.getByRole('button', { name: 'Import 3 rows' }));

    expect(await screen.findByText(detail)).toBeInTheDocument();
    expect(columnSelect(3)).toHaveValue('Value');
    expect(screen.getByRole('switch', { name: /Skip headers/ })).not.toBeChecked();
  });
});

describe('the attribute values import page: importing', () => {
  async function importing(api: FakeApi = fakeServer()): Promise<Page> {
    const page = renderImport(api);
    await uploadToPreview(page);
    await pick(page, 3, 'Value');
    await page.user.click(screen.getByRole('button', { name: 'Import 2 rows' }));
    await screen.findByRole('progressbar', { name: 'Import progress' });
    return page;
  }

  async function pollAfter(page: Page, ms: number) {
    const before = page.api.requestsTo('GET /segments_importer/simp_model').length;
    page.clock.increment(ms - 1);
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(page.api.requestsTo('GET /segments_importer/simp_model')).toHaveLength(before);
    page.clock.increment(1);
    await waitFor(() => expect(page.api.requestsTo('GET /segments_importer/simp_model')).toHaveLength(before + 1));
  }

  it('polls the import every 3 s at first and shows its progress', async () => {
    const page = await importing();
    expect(screen.getByRole('progressbar', { name: 'Import progress' })).toHaveAttribute('aria-valuenow', '0');
    expect(screen.getByText('Importing the attribute values…')).toBeInTheDocument();

    await pollAfter(page, 3_000);
    await waitFor(() => expect(screen.getByRole('progressbar', { name: 'Import progress' })).toHaveAttribute('aria-valuenow', '50'));
    expect(screen.getByText('50%')).toBeInTheDocument();
    await pollAfter(page, 3_000);
  });

  it('says when a status check fails, and goes on polling', async () => {
    const api = fakeServer();
    api.on(STATUS, () => ({ status: 503 }));
    const page = await importing(api);
    await pollAfter(page, 3_000);

    expect(await screen.findByText('We could not check the status of your import. Trying again shortly.')).toBeInTheDocument();
    api.on(STATUS, () => ({ status: 200, body: apiSegmentsImportView('simp_model', modelStatuses.running) }));
    await pollAfter(page, 3_000);
    await waitFor(() =>
      expect(screen.queryByText('We could not check the status of your import. Trying again shortly.')).not.toBeInTheDocument(),
    );
  });

  it("says 'all N values imported' when every row is imported", async () => {
    const api = fakeServer();
    api.on(STATUS, () => ({ status: 200, body: apiSegmentsImportView('simp_model', { ...modelStatuses.succeeded, successCount: 42 }) }));
    const page = await importing(api);
    await pollAfter(page, 3_000);

    expect(await screen.findByText('all 42 values imported')).toBeInTheDocument();
    expect(screen.getByText('Import complete')).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Go to customers' })).toHaveAttribute('href', '/customers');
  });

  it('lists the refused rows with the counts', async () => {
    const api = fakeServer();
    const failures = [
      { rowNumber: 3, row: 'cus_404,Nobody,Pro', message: "Customer 'cus_404' not found" },
      { rowNumber: 5, row: ',Acme,Pro', message: 'Customer ID is empty' },
    ];
    api.on(STATUS, () => ({
      status: 200,
      body: apiSegmentsImportView('simp_model', { ...modelStatuses.withErrors, successCount: 7, failureCount: 2, failures }),
    }));
    const page = await importing(api);
    await pollAfter(page, 3_000);

    expect(await screen.findByText('7 values imported, 2 rows could not be imported.')).toBeInTheDocument();
    const table = screen.getByRole('table', { name: 'Rows that could not be imported' });
    expect(within(table).getAllByRole('columnheader').map((header) => header.textContent)).toEqual(['Row number', 'Row', 'Message']);
    const rows = within(table).getAllByRole('row').slice(1);
    expect(rows.map((row) => within(row).getAllByRole('cell').map((cell) => cell.textContent))).toEqual([
      ['3', failures[0]?.row, failures[0]?.message],
      ['5', failures[1]?.row, failures[1]?.message],
    ]);
  });

  it("shows the server's error when the import fails, and starts over on request", async () => {
    const api = fakeServer();
    api.on(STATUS, () => ({ status: 200, body: apiSegmentsImportView('simp_model', modelStatuses.failed) }));
    const page = await importing(api);
    await pollAfter(page, 3_000);

    const alert = await screen.findByRole('alert');
    expect(within(alert).getByText('The import failed')).toBeInTheDocument();
    expect(within(alert).getByText('The import was interrupted; nothing was imported')).toBeInTheDocument();
    expect(screen.queryByRole('link', { name: 'Go to customers' })).not.toBeInTheDocument();

    await page.user.click(screen.getByRole('button', { name: 'Import another file' }));
    expect(await screen.findByText('Choose a .csv file')).toBeInTheDocument();
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
  });

  it('is registered with the state inspector under its import id', async () => {
    await importing();
    const entries = inspectorRegistry.list().filter((entry) => entry.name === 'segmentsImport');
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ live: true, importId: 'simp_model' });
  });
});

describe('the attribute values import page: progress over SegmentsImportChannel', () => {
  const IMPORT_ID = 'simp_model';

  async function importingLive(api: FakeApi = fakeServer()): Promise<Page> {
    const page = renderImport(api);
    await uploadToPreview(page);
    await pick(page, 3, 'Value');
    await page.user.click(screen.getByRole('button', { name: 'Import 2 rows' }));
    await screen.findByRole('progressbar', { name: 'Import progress' });
    await waitFor(() => expect(page.live.active()).toHaveLength(1));
    return page;
  }

  /** A message of the channel, as the server sends it. */
  const message = (fields: Partial<{ import_id: string; status: string; progress: number; success_count: number; failure_count: number; error: string | null }>) => ({
    import_id: IMPORT_ID,
    kind: 'segments',
    status: 'finalizing',
    progress: 0,
    event: 'commit started',
    success_count: 0,
    failure_count: 0,
    error: null,
    created_at: '2026-03-02T09:00:00.000Z',
    ...fields,
  });

  it('subscribes to SegmentsImportChannel for its import once the mapping is sent', async () => {
    const page = await importingLive();
    expect(page.live.active().map((subscription) => subscription.params)).toEqual([{ channel: 'SegmentsImportChannel', id: IMPORT_ID }]);
    expect(screen.queryByText('Live')).not.toBeInTheDocument();
    page.live.tell((channel) => channel.connected?.());
    expect(await screen.findByText('Live')).toBeInTheDocument();
  });

  it('moves the progress bar as the channel reports, without waiting for a poll', async () => {
    const page = await importingLive();
    page.live.tell((channel) => channel.received?.(message({ progress: 50 })));
    await waitFor(() => expect(screen.getByRole('progressbar', { name: 'Import progress' })).toHaveAttribute('aria-valuenow', '50'));
    expect(screen.getByText('50%')).toBeInTheDocument();
    // Another import's message, or something else, changes nothing.
    page.live.tell((channel) => channel.received?.(message({ import_id: 'simp_other', progress: 90 })));
    page.live.tell((channel) => channel.received?.('hello'));
    expect(screen.getByText('50%')).toBeInTheDocument();
    expect(page.api.requestsTo(`GET /segments_importer/${IMPORT_ID}`)).toHaveLength(0);
  });

  it("shows 'all N values imported' as soon as the channel reports the import done, and unsubscribes", async () => {
    const page = await importingLive();
    page.live.tell((channel) => channel.connected?.());
    page.live.tell((channel) => channel.received?.(message({ status: 'done', progress: 100, success_count: 42 })));
    expect(await screen.findByText('all 42 values imported')).toBeInTheDocument();
    expect(page.api.requestsTo(`GET /segments_importer/${IMPORT_ID}`)).toHaveLength(0);
    expect(page.live.active()).toEqual([]);
  });

  it('fetches the refused rows at once when the channel reports the import done with some', async () => {
    const api = fakeServer();
    api.on(STATUS, () => ({ status: 200, body: apiSegmentsImportView(IMPORT_ID, modelStatuses.withErrors) }));
    const page = await importingLive(api);
    page.live.tell((channel) => channel.received?.(message({ status: 'done', progress: 100, success_count: 1, failure_count: 1 })));
    expect(await screen.findByText('1 value imported, 1 row could not be imported.')).toBeInTheDocument();
    expect(api.requestsTo(`GET /segments_importer/${IMPORT_ID}`)).toHaveLength(1);
  });

  it('keeps polling when the channel rejects the subscription, so the result still shows', async () => {
    const api = fakeServer();
    const page = await importingLive(api);
    page.live.tell((channel) => channel.lost?.());
    api.on(STATUS, () => ({ status: 200, body: apiSegmentsImportView(IMPORT_ID, { ...modelStatuses.succeeded, successCount: 3 }) }));
    page.clock.increment(3_000);
    expect(await screen.findByText('all 3 values imported')).toBeInTheDocument();
  });

  it('closes the live channels when the session ends (a 401 signs the user out)', async () => {
    const api = fakeServer();
    const page = await importingLive(api);
    expect(page.live.closeCount()).toBe(0);
    api.on(STATUS, () => ({ status: 401, body: { errors: [{ detail: 'You need to sign in or sign up before continuing.', status: '401' }] } }));
    page.clock.increment(3_000);
    await waitFor(() => expect(page.live.closeCount()).toBe(1));
    expect(page.live.active()).toEqual([]);
  });
});
