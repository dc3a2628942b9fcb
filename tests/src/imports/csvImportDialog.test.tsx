import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  CSV_IMPORT_ERROR_MESSAGE,
  CSV_IMPORT_FAILURE_TOAST,
  CSV_IMPORT_POLLING_LIMIT_MESSAGE,
  CSV_IMPORT_STARTED_NOTICE,
  CSV_ONLY_MESSAGE,
} from '../../../machines/csvImport/messages';
import { pollIntervalMs } from '../../../models/imports';
import { CSV_IMPORT_MAX_POLLS } from '../../../models/constants';
import { TOKEN_STORAGE_KEY } from '../../../src/api/tokenStore';
import { CSV_IMPORT_STORAGE_KEY, csvImportForm } from '../../../src/imports/csvImportApi';
import { inspectorRegistry } from '../../../src/inspector/registry';
import { defaultFakeApi, fullAccessUser, renderApp } from '../renderApp';
import { apiErrors } from '../support/fakeApi';
import type { FakeAnswer, FakeApi } from '../support/fakeApi';

/**
 * The CSV import dialog of Settings → Import CSV, in the whole app over a fake API: what the
 * user sees while choosing a file, while the import runs (the backoff driven by fake timers)
 * and after it, in the spec's words.
 */

const IMPORT_ID = 'imp_8f2k1';
const STORED_TOKEN = 'stored.jwt.token';
const csvFile = () => new File(['customer_id,started_at,ended_at,monthly_amount\ncus_1,2025-01-01,2025-02-01,99.00\n'], 'payments.csv', { type: 'text/csv' });

const failedRows = [
  { row_number: 4, row: 'cus_4,31/31/2024,2025-02-01,10.00', message: "Started at '31/31/2024' is not a date" },
  { row_number: 9, row: ',2025-01-01,2025-02-01,10.00', message: 'Customer ID is empty' },
];

/** A GET /subscriptions/csv_import/{id} answer. */
function importAnswer(status: string, progress: number, result: Partial<{ success_count: number; failure_count: number; failures: typeof failedRows; error: string }> = {}): FakeAnswer {
  return {
    status: 200,
    body: {
      id: IMPORT_ID,
      status,
      progress,
      file_name: 'payments.csv',
      total_rows: 12,
      delimiter: ',',
      encoding: 'utf-8',
      result: { status, success_count: 0, failure_count: 0, failures: [], ...result },
      validation_failures: [],
      audit_log: [],
      created_at: '2025-03-01T10:00:00.000Z',
      finished_at: null,
    },
  };
}

const accepted: FakeAnswer = {
  status: 200,
  body: { id: IMPORT_ID, import_id: IMPORT_ID, status: 'in_progress', total_rows: 2, preview_rows: [], columns: 4, delimiter: ',', encoding: 'utf-8' },
};

/** The server: the user's own calls, the upload's answer, and the polls' answers in turn (the last repeats). */
function importServer(upload: FakeAnswer = accepted, polls: FakeAnswer[] = [importAnswer('in_progress', 0)]): FakeApi {
  const api = defaultFakeApi(fullAccessUser);
  api.on('POST /subscriptions/csv_import', () => upload);
  let answered = 0;
  api.on('GET /subscriptions/csv_import/:id', () => {
    const answer = polls[Math.min(answered, polls.length - 1)] ?? importAnswer('in_progress', 0);
    answered += 1;
    return answer;
  });
  return api;
}

const polls = (api: FakeApi) => api.requestsTo(`GET /subscriptions/csv_import/${IMPORT_ID}`);

/** Lets the backoff run: the next poll goes out and its answer shows. */
async function elapse(ms: number) {
  await act(() => vi.advanceTimersByTimeAsync(ms));
}

function setup(options: { applyAccept?: boolean } = {}) {
  return userEvent.setup({ advanceTimers: vi.advanceTimersByTime, applyAccept: options.applyAccept ?? true });
}

async function openDialog(user: ReturnType<typeof setup>, buttonName = 'Upload a file') {
  await user.click(await screen.findByRole('button', { name: buttonName }));
  return screen.findByRole('dialog', { name: 'Import CSV' });
}

function fileInputOf(dialog: HTMLElement): HTMLInputElement {
  const input = dialog.querySelector<HTMLInputElement>('input[type="file"]');
  if (!input) throw new Error('The dialog has no file input');
  return input;
}

async function chooseAndImport(user: ReturnType<typeof setup>, dialog: HTMLElement, file: File = csvFile()) {
  await user.upload(fileInputOf(dialog), file);
  await user.click(within(dialog).getByRole('button', { name: 'Import' }));
}

beforeEach(() => {
  vi.useFakeTimers({ shouldAdvanceTime: true });
});

afterEach(() => {
  vi.useRealTimers();
});

describe('Settings: the Import CSV card and dialog', () => {
  it('opens a dialog that takes one .csv file with the four columns in order', async () => {
    const user = setup();
    renderApp({ path: '/settings', user: fullAccessUser, api: importServer() });

    expect(await screen.findByRole('heading', { name: 'Import CSV' })).toBeInTheDocument();
    const dialog = await openDialog(user);

    expect(within(dialog).getByText('customer_id,started_at,ended_at,monthly_amount')).toBeInTheDocument();
    expect(fileInputOf(dialog)).toHaveAttribute('accept', '.csv');
    expect(within(dialog).getByRole('button', { name: 'Import' })).toBeDisabled();

    await user.upload(fileInputOf(dialog), csvFile());
    expect(within(dialog).getByText('payments.csv')).toBeInTheDocument();
    expect(within(dialog).getByRole('button', { name: 'Import' })).toBeEnabled();
  });

  it(`says '${CSV_ONLY_MESSAGE}' for another file and does not upload it`, async () => {
    const user = setup({ applyAccept: false });
    const api = importServer();
    renderApp({ path: '/settings', user: fullAccessUser, api });
    const dialog = await openDialog(user);

    await user.upload(fileInputOf(dialog), new File(['x'], 'payments.xlsx'));

    expect(within(dialog).getByText(CSV_ONLY_MESSAGE)).toBeInTheDocument();
    expect(within(dialog).getByRole('button', { name: 'Import' })).toBeDisabled();
    expect(api.requestsTo('POST /subscriptions/csv_import')).toHaveLength(0);
  });

  it('uploads the file, polls the import with its progress, shows the counts and failed rows, and Dismiss clears the stored id', async () => {
    window.localStorage.setItem(TOKEN_STORAGE_KEY, STORED_TOKEN);
    const user = setup();
    const api = importServer(accepted, [
      importAnswer('in_progress', 40),
      importAnswer('done', 100, { success_count: 10, failure_count: 2, failures: failedRows }),
    ]);
    renderApp({ path: '/settings', user: fullAccessUser, api });
    const dialog = await openDialog(user);
    await chooseAndImport(user, dialog);

    // The upload: multipart with the column order and the file, authorized by the client.
    const [upload] = api.requestsTo('POST /subscriptions/csv_import');
    expect(upload?.headers.get('Authorization')).toBe(`Bearer ${STORED_TOKEN}`);
    expect(upload?.headers.get('Content-Type')).toMatch(/^multipart\/form-data; boundary=/);
    expect(String(upload?.body)).toContain('name="column_order"\r\n\r\ncustomer_id,started_at,ended_at,monthly_amount');
    expect(String(upload?.body)).toContain('name="paying_customers"');

    // Accepted: in progress, the id stored, the import notice shown.
    expect(await within(dialog).findByText('Importing your file…')).toBeInTheDocument();
    expect(window.localStorage.getItem(CSV_IMPORT_STORAGE_KEY)).toBe(IMPORT_ID);
    expect(screen.getByText(CSV_IMPORT_STARTED_NOTICE)).toBeInTheDocument();
    expect(screen.getByText('Import in progress (0%)')).toBeInTheDocument();
    expect(polls(api)).toHaveLength(0);

    // 3 s later the first poll: 40%.
    await elapse(3_000);
    expect(polls(api)).toHaveLength(1);
    expect(await within(dialog).findByText('Importing payments.csv…')).toBeInTheDocument();
    expect(within(dialog).getByRole('progressbar')).toHaveAttribute('aria-valuenow', '40');
    expect(within(dialog).getByText('40%')).toBeInTheDocument();

    // 3 s later the second: done, with two failed rows.
    await elapse(3_000);
    expect(await within(dialog).findByText('Import completed')).toBeInTheDocument();
    expect(within(dialog).getByLabelText('Imported: 10')).toBeInTheDocument();
    expect(within(dialog).getByLabelText('Failed: 2')).toBeInTheDocument();
    const table = within(dialog).getByRole('table', { name: 'Rows that could not be imported' });
    const rows = within(table).getAllByRole('row').slice(1);
    expect(rows.map((row) => within(row).getAllByRole('cell').map((cell) => cell.textContent))).toEqual(
      failedRows.map((row) => [String(row.row_number), row.row, row.message]),
    );
    expect(screen.getByText(CSV_IMPORT_FAILURE_TOAST)).toBeInTheDocument();
    expect(screen.getByText('Import completed', { selector: '.mantine-Badge-label' })).toBeInTheDocument();

    await elapse(60_000);
    expect(polls(api)).toHaveLength(2);

    await user.click(within(dialog).getByRole('button', { name: 'Dismiss' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    expect(window.localStorage.getItem(CSV_IMPORT_STORAGE_KEY)).toBeNull();

    const again = await openDialog(user);
    expect(within(again).getByRole('button', { name: 'Import' })).toBeDisabled();
  });

  it('keeps the import notice for 30 s, and the failure toast for 10 s', async () => {
    const user = setup();
    const api = importServer(accepted, [importAnswer('in_progress', 20), importAnswer('failed', 20, { error: 'The upload was interrupted' })]);
    renderApp({ path: '/settings', user: fullAccessUser, api });
    await chooseAndImport(user, await openDialog(user));
    expect(await screen.findByText(CSV_IMPORT_STARTED_NOTICE)).toBeInTheDocument();

    // The second poll, 6 s after the upload, answers the import failed.
    await elapse(3_000);
    await elapse(3_000);
    expect(polls(api)).toHaveLength(2);
    expect(await screen.findByText(CSV_IMPORT_FAILURE_TOAST)).toBeInTheDocument();

    await elapse(9_000);
    expect(screen.getByText(CSV_IMPORT_FAILURE_TOAST)).toBeInTheDocument();
    await elapse(1_500);
    await waitFor(() => expect(screen.queryByText(CSV_IMPORT_FAILURE_TOAST)).not.toBeInTheDocument());

    // 29 s after the upload the notice is still there; at 30 s it goes.
    await elapse(12_500);
    expect(screen.getByText(CSV_IMPORT_STARTED_NOTICE)).toBeInTheDocument();
    await elapse(1_500);
    await waitFor(() => expect(screen.queryByText(CSV_IMPORT_STARTED_NOTICE)).not.toBeInTheDocument());
  });

  it('lists the rows of a refused upload (400) with row number, row and message; Try again starts over', async () => {
    const user = setup();
    const refused: FakeAnswer = {
      ...apiErrors(400, { pointer: '/body/paying_customers', detail: '1 row(s) of the file cannot be imported' }),
    };
    refused.body = {
      ...(refused.body as object),
      validation_failures: [{ row_number: 3, row: 'cus_3;2025-01-01', message: 'Row 3 has 2 column(s); 4 are expected (Customer ID, Started at, Ended at, Monthly amount)' }],
    };
    const api = importServer(refused);
    renderApp({ path: '/settings', user: fullAccessUser, api });
    const dialog = await openDialog(user);
    await chooseAndImport(user, dialog);

    expect(await within(dialog).findByText('Some rows of the file cannot be imported')).toBeInTheDocument();
    expect(within(dialog).getByText('1 row(s) of the file cannot be imported')).toBeInTheDocument();
    const table = within(dialog).getByRole('table', { name: 'Rows that cannot be imported' });
    expect(within(table).getByRole('cell', { name: '3' })).toBeInTheDocument();
    expect(within(table).getByText('cus_3;2025-01-01')).toBeInTheDocument();
    expect(within(table).getByText(/Row 3 has 2 column\(s\)/)).toBeInTheDocument();
    expect(screen.getByText(CSV_IMPORT_FAILURE_TOAST)).toBeInTheDocument();
    expect(window.localStorage.getItem(CSV_IMPORT_STORAGE_KEY)).toBeNull();
    expect(polls(api)).toHaveLength(0);

    await user.click(within(dialog).getByRole('button', { name: 'Try again' }));
    expect(await within(dialog).findByRole('button', { name: 'Import' })).toBeDisabled();
  });

  it(`shows '${CSV_IMPORT_ERROR_MESSAGE}' with the server's reason for any other refusal`, async () => {
    const user = setup();
    const api = importServer(apiErrors(413, { pointer: '/body/paying_customers', detail: 'The file is larger than 200 MB' }));
    renderApp({ path: '/settings', user: fullAccessUser, api });
    const dialog = await openDialog(user);
    await chooseAndImport(user, dialog);

    const alert = await within(dialog).findByRole('alert');
    expect(alert).toHaveTextContent(CSV_IMPORT_ERROR_MESSAGE);
    expect(alert).toHaveTextContent('The file is larger than 200 MB');
    expect(screen.getByText(CSV_IMPORT_FAILURE_TOAST)).toBeInTheDocument();
    expect(screen.getByText('Import failed')).toBeInTheDocument();

    await user.click(within(dialog).getByRole('button', { name: 'Try again' }));
    expect(await within(dialog).findByText('customer_id,started_at,ended_at,monthly_amount')).toBeInTheDocument();
  });

  it('resumes polling the stored import after a reload, goes on while the dialog is closed, and toasts the outcome', async () => {
    window.localStorage.setItem(CSV_IMPORT_STORAGE_KEY, IMPORT_ID);
    const user = setup();
    const api = importServer(accepted, [importAnswer('in_progress', 55), importAnswer('done', 100, { success_count: 12 })]);
    renderApp({ path: '/settings', user: fullAccessUser, api });

    // Polled at once, before the dialog is even opened.
    expect(await screen.findByText('Import in progress (55%)')).toBeInTheDocument();
    expect(polls(api)).toHaveLength(1);
    expect(api.requestsTo('POST /subscriptions/csv_import')).toHaveLength(0);

    const dialog = await openDialog(user, 'Show progress');
    expect(within(dialog).getByRole('progressbar')).toHaveAttribute('aria-valuenow', '55');
    await user.click(within(dialog).getByRole('button', { name: 'Close' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());

    await elapse(3_000);
    expect(await screen.findByText('Your import is complete: 12 rows imported')).toBeInTheDocument();
    expect(screen.getByText('Import completed')).toBeInTheDocument();
    // The result stays until it is dismissed.
    expect(window.localStorage.getItem(CSV_IMPORT_STORAGE_KEY)).toBe(IMPORT_ID);

    const result = await openDialog(user, 'Show result');
    expect(within(result).getByLabelText('Imported: 12')).toBeInTheDocument();
    expect(within(result).queryByRole('table')).not.toBeInTheDocument();
  });

  it("shows a failed import's reason, and forgets the import with Try again", async () => {
    window.localStorage.setItem(CSV_IMPORT_STORAGE_KEY, IMPORT_ID);
    const user = setup();
    const api = importServer(accepted, [importAnswer('failed', 30, { error: 'The upload was interrupted' })]);
    renderApp({ path: '/settings', user: fullAccessUser, api });

    const dialog = await openDialog(user, 'Show result');
    const alert = await within(dialog).findByRole('alert');
    expect(alert).toHaveTextContent(CSV_IMPORT_ERROR_MESSAGE);
    expect(alert).toHaveTextContent('The upload was interrupted');

    await user.click(within(dialog).getByRole('button', { name: 'Try again' }));
    expect(window.localStorage.getItem(CSV_IMPORT_STORAGE_KEY)).toBeNull();
  });

  it(`shows '${CSV_IMPORT_POLLING_LIMIT_MESSAGE}' after ${CSV_IMPORT_MAX_POLLS} polls without an outcome`, async () => {
    window.localStorage.setItem(CSV_IMPORT_STORAGE_KEY, IMPORT_ID);
    const user = setup();
    const api = importServer(accepted, [importAnswer('in_progress', 10)]);
    renderApp({ path: '/settings', user: fullAccessUser, api });
    await screen.findByText('Import in progress (10%)');

    for (let poll = 2; poll <= CSV_IMPORT_MAX_POLLS; poll += 1) {
      await elapse(pollIntervalMs(poll));
      if (polls(api).length !== poll) await waitFor(() => expect(polls(api)).toHaveLength(poll));
    }

    expect(await screen.findByText('Import failed')).toBeInTheDocument();
    const dialog = await openDialog(user, 'Show result');
    expect(within(dialog).getByRole('alert')).toHaveTextContent(CSV_IMPORT_POLLING_LIMIT_MESSAGE);
    await elapse(60 * 60_000);
    expect(polls(api)).toHaveLength(CSV_IMPORT_MAX_POLLS);
  }, 120_000);

  it('registers the import with the state inspector, with its import id', async () => {
    const user = setup();
    renderApp({ path: '/settings', user: fullAccessUser, api: importServer() });
    const dialog = await openDialog(user);
    await chooseAndImport(user, dialog);
    await within(dialog).findByText('Importing your file…');

    const traced = inspectorRegistry.list().filter((actor) => actor.name === 'csvImport' && actor.live);
    expect(traced.at(-1)?.importId).toBe(IMPORT_ID);
    expect(traced.at(-1)?.trace.map((entry) => entry.value)).toContainEqual({ inProgress: 'waiting' });
  });

  it('sends the chosen file under paying_customers with its name', () => {
    const file = csvFile();
    const form = csvImportForm(file);
    expect(form.get('column_order')).toBe('customer_id,started_at,ended_at,monthly_amount');
    expect((form.get('paying_customers') as File).name).toBe('payments.csv');
  });
});
