import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { UserEvent } from '@testing-library/user-event';
import { beforeEach, describe, expect, it } from 'vitest';
import { SimulatedClock } from 'xstate';
import { TOKEN_STORAGE_KEY } from '../../../src/api/tokenStore';
import { ImportWizard } from '../../../src/imports/ImportWizard';
import { inspectorRegistry } from '../../../src/inspector/registry';
import { apiImportView, apiUploadAnswer } from '../../machines/mappingWizard/paymentsImportApiAnswers';
import { modelPreview, modelStatuses } from '../../machines/mappingWizard/paymentsImportModel';
import { fullAccessUser, renderApp, renderWithProviders } from '../renderApp';
import { apiErrors, createFakeApi } from '../support/fakeApi';
import type { FakeApi } from '../support/fakeApi';

/** What the import page shows and sends, step by step, against a fake API. */

const UPLOAD = 'POST /subscriptions/csv_import';
const FINALIZE = 'POST /subscriptions/csv_import/:id/finalize';
const STATUS = 'GET /subscriptions/csv_import/:id';
const STORED_TOKEN = 'stored.jwt.token';

const dataOnlyPreview = { ...modelPreview, importId: 'imp_data', totalRows: 2, rows: modelPreview.rows.slice(1) };

function fakeServer(preview = modelPreview): FakeApi {
  return createFakeApi({
    [UPLOAD]: () => ({ status: 200, body: apiUploadAnswer(preview) }),
    [FINALIZE]: () => ({ status: 200, body: apiImportView(preview.importId, modelStatuses.queued) }),
    [STATUS]: () => ({ status: 200, body: apiImportView(preview.importId, modelStatuses.running) }),
  });
}

interface Page {
  user: UserEvent;
  api: FakeApi;
  clock: SimulatedClock;
  container: HTMLElement;
}

function renderWizard(api: FakeApi = fakeServer()): Page {
  const clock = new SimulatedClock();
  const { container } = renderWithProviders(<ImportWizard clock={clock} />, { user: fullAccessUser, api });
  return { user: userEvent.setup({ applyAccept: false, delay: null }), api, clock, container };
}

const csv = () => new File(['customer,invoice\n'], 'payments.csv', { type: 'text/csv' });

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

const columnSelect = (column: number) => screen.getByRole('combobox', { name: `Field of column ${column}` });

async function pick(page: Page, column: number, label: string) {
  await page.user.click(columnSelect(column));
  await page.user.click(await screen.findByRole('option', { name: label }));
}

beforeEach(() => {
  inspectorRegistry.clear();
});

describe('the import page', () => {
  it('is the page of /import-subscriptions, starting at the upload step', async () => {
    const { container } = renderApp({ path: '/import-subscriptions', user: fullAccessUser });

    expect(await screen.findByRole('heading', { level: 1, name: 'Import payments' })).toBeInTheDocument();
    const steps = within(screen.getByLabelText('Import steps'));
    for (const [label, description] of [
      ['Upload', 'Your .csv file'],
      ['Map columns', 'Match columns to fields'],
      ['Import', 'Check and save the rows'],
    ]) {
      expect(steps.getByRole('button', { name: new RegExp(`${label}${description}`) })).toBeInTheDocument();
    }
    expect(screen.getByText('Choose a .csv file')).toBeInTheDocument();
    expect(container.querySelector('input[type="file"]')).toHaveAttribute('accept', '.csv');
  });

  it("uploads the file in the field 'csv' with the signed-in user's token, showing a skeleton meanwhile", async () => {
    window.localStorage.setItem(TOKEN_STORAGE_KEY, STORED_TOKEN);
    const api = fakeServer();
    api.hold(UPLOAD);
    const page = renderWizard(api);
    await choose(page, csv());
    await page.user.click(screen.getByRole('button', { name: 'Upload' }));

    expect(await screen.findByLabelText('Loading preview')).toBeInTheDocument();
    await waitFor(() => expect(api.waiting(UPLOAD)).toBe(1));
    const [request] = api.requestsTo('POST /subscriptions/csv_import');
    expect(request?.headers.get('Authorization')).toBe(`Bearer ${STORED_TOKEN}`);
    expect(request?.headers.get('Content-Type')).toMatch(/^multipart\/form-data; boundary=/);
    expect(String(request?.body)).toContain('name="csv"');
    expect(String(request?.body)).not.toContain('column_order');

    api.release(UPLOAD, { status: 200, body: apiUploadAnswer(modelPreview) });
    expect(await screen.findByRole('table', { name: 'Preview of the first rows' })).toBeInTheDocument();
    expect(screen.queryByLabelText('Loading preview')).not.toBeInTheDocument();
  });

  it("refuses a file that is not a .csv without uploading it", async () => {
    const page = renderWizard();
    await choose(page, new File(['%PDF'], 'payments.pdf', { type: 'application/pdf' }));
    await page.user.click(screen.getByRole('button', { name: 'Upload' }));

    expect(await screen.findByText('Only .csv files can be imported')).toBeInTheDocument();
    expect(page.api.requests).toEqual([]);
  });

  it("shows the server's reason for a refused upload and keeps the file for another try", async () => {
    const api = fakeServer();
    api.on(UPLOAD, () => apiErrors(413, { pointer: '/body/csv', detail: 'The file is larger than 200 MB' }));
    const page = renderWizard(api);
    await choose(page, csv());
    await page.user.click(screen.getByRole('button', { name: 'Upload' }));

    const alert = await screen.findByRole('alert');
    expect(within(alert).getByText('The file could not be uploaded')).toBeInTheDocument();
    expect(within(alert).getByText('The file is larger than 200 MB')).toBeInTheDocument();
    expect(screen.getByText('payments.csv')).toBeInTheDocument();

    api.on(UPLOAD, () => ({ status: 200, body: apiUploadAnswer(modelPreview) }));
    await page.user.click(screen.getByRole('button', { name: 'Upload' }));
    expect(await screen.findByRole('table', { name: 'Preview of the first rows' })).toBeInTheDocument();
  });

  it("shows the spec's message when the upload fails without a reason", async () => {
    const api = fakeServer();
    api.on(UPLOAD, () => ({ status: 500 }));
    const page = renderWizard(api);
    await choose(page, csv());
    await page.user.click(screen.getByRole('button', { name: 'Upload' }));

    expect(await screen.findByText('Something went wrong with uploading csv file')).toBeInTheDocument();
  });
});

describe('the import page: mapping', () => {
  it('previews the first rows under a field menu per column, with the default columns the file has', async () => {
    const page = renderWizard();
    const table = await uploadToPreview(page);

    expect(within(table).getByText('cus_001')).toBeInTheDocument();
    expect(within(table).getByText('49.00')).toBeInTheDocument();
    const shown = [1, 2, 3, 4, 5, 6, 7].map((column) => (columnSelect(column) as HTMLInputElement).value);
    expect(shown).toEqual([
      'Customer ID',
      'Invoice number',
      'Started at',
      'Ended at',
      'Not mapped',
      'Months',
      'Monthly amount',
    ]);
    expect(screen.queryByRole('combobox', { name: 'Field of column 8' })).not.toBeInTheDocument();
    expect(screen.getByText('Map the columns of payments.csv')).toBeInTheDocument();
  });

  it("offers 'Not mapped' and every field by its label, the required ones apart", async () => {
    const page = renderWizard();
    await uploadToPreview(page);
    await page.user.click(columnSelect(5));

    const listbox = await screen.findByRole('listbox');
    expect(within(listbox).getAllByRole('option').map((option) => option.textContent)).toEqual([
      'Not mapped',
      // Required, or one of a pair: the amount (monthly or total) and the period (months or end).
      'Customer ID',
      'Started at',
      'Ended at',
      'Months',
      'Monthly amount',
      'Total value',
      // Optional: the invoice number among them.
      'Invoice number',
      'Revenue type',
      'Currency',
      'Product',
      'Customer name',
      'Units',
      'Discount monthly amount',
      'Discount kind',
      'Discount months',
    ]);
    expect(within(listbox).getByText('Required')).toBeInTheDocument();
    expect(within(listbox).getByText('Optional')).toBeInTheDocument();
  });

  it('skips the header row by default when the first row looks like one, and counts the rows to import', async () => {
    const page = renderWizard();
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

  it('keeps the first row when it is a payment', async () => {
    const page = renderWizard(fakeServer(dataOnlyPreview));
    await uploadToPreview(page);

    expect(screen.getByRole('switch', { name: /Skip headers/ })).not.toBeChecked();
    expect(screen.queryByText('Skipped')).not.toBeInTheDocument();
  });

  it("moves a field to the column it is picked for: the column it was on becomes 'Not mapped'", async () => {
    const page = renderWizard();
    await uploadToPreview(page);
    await pick(page, 5, 'Monthly amount');

    expect(columnSelect(5)).toHaveValue('Monthly amount');
    expect(columnSelect(7)).toHaveValue('Not mapped');
  });

  it("checks the required fields before importing and shows the spec's rule", async () => {
    const page = renderWizard();
    await uploadToPreview(page);
    await pick(page, 7, 'Not mapped');

    expect(screen.getByRole('listitem', { name: 'Monthly amount or Total value: not mapped' })).toBeInTheDocument();
    expect(screen.getByRole('listitem', { name: 'Months or Ended at: mapped' })).toBeInTheDocument();
    expect(screen.getByRole('listitem', { name: 'Customer ID: mapped' })).toBeInTheDocument();
    expect(screen.queryByRole('listitem', { name: /^Invoice number/ })).not.toBeInTheDocument();
    await page.user.click(screen.getByRole('button', { name: 'Import 2 rows' }));

    expect(
      await screen.findByText('Subscription import requires mapping of monthly_amount or total_value, started_at, customer_id, months or ended_at'),
    ).toBeInTheDocument();
    expect(page.api.requestsTo('POST /subscriptions/csv_import/imp_model/finalize')).toEqual([]);
  });

  it('takes a total value instead of the monthly amount (not both), discount columns, and no invoice number', async () => {
    const page = renderWizard();
    await uploadToPreview(page);
    await pick(page, 5, 'Total value');
    expect(screen.getByRole('listitem', { name: 'Monthly amount or Total value: mapped' })).toBeInTheDocument();
    await page.user.click(screen.getByRole('button', { name: 'Import 2 rows' }));
    expect(await screen.findByText('Map Monthly amount or Total value, not both')).toBeInTheDocument();

    await pick(page, 7, 'Discount monthly amount');
    await pick(page, 2, 'Not mapped');
    await page.user.click(screen.getByRole('button', { name: 'Import 2 rows' }));
    await waitFor(() => expect(page.api.requestsTo('POST /subscriptions/csv_import/imp_model/finalize')).toHaveLength(1));
    expect(page.api.requestsTo('POST /subscriptions/csv_import/imp_model/finalize')[0]?.body).toMatchObject({
      invoice_number: null,
      monthly_amount: null,
      total_value: 4,
      discount_amount: 6,
      discount_kind: null,
      discount_months: null,
    });
  });

  it('sends the mapping (null for the fields not mapped) and the skip-headers choice', async () => {
    const page = renderWizard();
    await uploadToPreview(page);
    await pick(page, 5, 'Product');
    await page.user.click(screen.getByRole('button', { name: 'Import 2 rows' }));

    await waitFor(() => expect(page.api.requestsTo('POST /subscriptions/csv_import/imp_model/finalize')).toHaveLength(1));
    expect(page.api.requestsTo('POST /subscriptions/csv_import/imp_model/finalize')[0]?.body).toEqual({
      skip_headers: true,
      customer_id: 0,
      invoice_number: 1,
      started_at: 2,
      ended_at: 3,
      months: 5,
      monthly_amount: 6,
      revenue_type: null,
      currency: null,
      product: 4,
      customer_name: null,
      units: null,
      total_value: null,
      discount_amount: null,
      discount_kind: null,
      discount_months: null,
    });
  });

  it("keeps what was chosen when the server refuses the mapping, with the server's reason", async () => {
    const api = fakeServer();
    api.on(FINALIZE, () => apiErrors(422, { pointer: '/params/id', detail: 'This import is not waiting for its mapping' }));
    const page = renderWizard(api);
    await uploadToPreview(page);
    await pick(page, 5, 'Product');
    await page.user.click(screen.getByRole('switch', { name: /Skip headers/ }));
    await page.user.click(screen.getByRole('button', { name: 'Import 3 rows' }));

    expect(await screen.findByText('This import is not waiting for its mapping')).toBeInTheDocument();
    expect(columnSelect(5)).toHaveValue('Product');
    expect(screen.getByRole('switch', { name: /Skip headers/ })).not.toBeChecked();
  });
});

describe('the import page: importing', () => {
  async function importing(api: FakeApi = fakeServer()): Promise<Page> {
    const page = renderWizard(api);
    await uploadToPreview(page);
    await page.user.click(screen.getByRole('button', { name: 'Import 2 rows' }));
    await screen.findByRole('progressbar', { name: 'Import progress' });
    return page;
  }

  async function pollAfter(page: Page, ms: number) {
    const before = page.api.requestsTo('GET /subscriptions/csv_import/imp_model').length;
    page.clock.increment(ms - 1);
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(page.api.requestsTo('GET /subscriptions/csv_import/imp_model')).toHaveLength(before);
    page.clock.increment(1);
    await waitFor(() => expect(page.api.requestsTo('GET /subscriptions/csv_import/imp_model')).toHaveLength(before + 1));
  }

  it('polls the import every 3 s at first and shows its progress', async () => {
    const page = await importing();
    expect(screen.getByRole('progressbar', { name: 'Import progress' })).toHaveAttribute('aria-valuenow', '0');
    expect(screen.getByText('Importing your payments…')).toBeInTheDocument();

    await pollAfter(page, 3_000);
    await waitFor(() => expect(screen.getByRole('progressbar', { name: 'Import progress' })).toHaveAttribute('aria-valuenow', '40'));
    expect(screen.getByText('40%')).toBeInTheDocument();
    await pollAfter(page, 3_000);
  });

  it('says when a status check fails, and goes on polling', async () => {
    const api = fakeServer();
    api.on(STATUS, () => ({ status: 503 }));
    const page = await importing(api);
    await pollAfter(page, 3_000);

    expect(await screen.findByText('We could not check the status of your import. Trying again shortly.')).toBeInTheDocument();
    api.on(STATUS, () => ({ status: 200, body: apiImportView('imp_model', modelStatuses.running) }));
    await pollAfter(page, 3_000);
    await waitFor(() => expect(screen.queryByText('We could not check the status of your import. Trying again shortly.')).not.toBeInTheDocument());
  });

  it("says 'all N records imported' when every row is imported", async () => {
    const api = fakeServer();
    api.on(STATUS, () => ({ status: 200, body: apiImportView('imp_model', { ...modelStatuses.succeeded, successCount: 42 }) }));
    const page = await importing(api);
    await pollAfter(page, 3_000);

    expect(await screen.findByText('all 42 records imported')).toBeInTheDocument();
    expect(screen.getByText('Import complete')).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Go to payments' })).toHaveAttribute('href', '/payments');
  });

  it('lists the refused rows with the counts', async () => {
    const api = fakeServer();
    const failures = [
      { rowNumber: 3, row: 'cus_002,INV-002,2024-02-01,,Basic,1,nineteen', message: "Monthly amount 'nineteen' is not a number" },
      { rowNumber: 5, row: 'cus_004,,2024-02-01,,Basic,1,19.00', message: 'Invoice number is empty' },
    ];
    api.on(STATUS, () => ({
      status: 200,
      body: apiImportView('imp_model', { ...modelStatuses.withErrors, successCount: 7, failureCount: 2, failures }),
    }));
    const page = await importing(api);
    await pollAfter(page, 3_000);

    expect(await screen.findByText('7 records imported, 2 rows could not be imported.')).toBeInTheDocument();
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
    api.on(STATUS, () => ({ status: 200, body: apiImportView('imp_model', modelStatuses.failed) }));
    const page = await importing(api);
    await pollAfter(page, 3_000);

    const alert = await screen.findByRole('alert');
    expect(within(alert).getByText('The import failed')).toBeInTheDocument();
    expect(within(alert).getByText('The import was interrupted; nothing was imported')).toBeInTheDocument();

    await page.user.click(screen.getByRole('button', { name: 'Import another file' }));
    expect(await screen.findByText('Choose a .csv file')).toBeInTheDocument();
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
  });

  it('is registered with the state inspector under its import id', async () => {
    await importing();
    const entries = inspectorRegistry.list().filter((entry) => entry.name === 'paymentsImport');
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ live: true, importId: 'imp_model' });
  });
});
