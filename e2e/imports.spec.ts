import type { Locator, Page } from '@playwright/test';
import { readFileSync } from 'node:fs';
import { signInAsNewOwner } from './support/auth';
import { chooseFile, writeCsv } from './support/csv';
import { expect, test } from './support/test';

/** Where the dialog keeps the id of the import this browser started (src/imports/csvImportApi.ts). */
const STORED_IMPORT_KEY = 'subscope.csvImport.importId';
const DIALOG_HEADER = 'customer_id,started_at,ended_at,monthly_amount';
const FAILURE_TOAST = 'There were a problem with you import';


const storedImportId = (page: Page) => page.evaluate((key) => localStorage.getItem(key), STORED_IMPORT_KEY);
const importDialog = (page: Page) => page.getByRole('dialog', { name: 'Import CSV' });
/** The Import CSV card's status badge ('Uploading', 'Import in progress (N%)', 'Import completed', 'Import failed'). */
const cardBadge = (page: Page) => page.getByRole('main').getByText(/^(Uploading|Import in progress \(\d+%\)|Import completed|Import failed)$/);

/**
 * Closes the toasts on screen (their close buttons have no accessible name, so they are found
 * inside each toast). The import notices stay 30 s at the top right, over the user menu's items.
 * A toast may close itself (its timeout) between being listed and being clicked, or be on its
 * way out: each round clicks the close buttons still there (forced past the animation; one that
 * went away meanwhile is no failure) and waits for the toasts to be gone, until they are (a
 * toast that arrived during a round is closed by the next).
 */
async function closeToasts(page: Page): Promise<void> {
  const toasts = page.locator('.mantine-Notification-root');
  await expect(async () => {
    for (const close of await toasts.getByRole('button').all()) await close.click({ force: true, timeout: 1_000 }).catch(() => {});
    await expect(toasts).toHaveCount(0, { timeout: 2_000 });
  }).toPass({ timeout: 20_000 });
}

/** Opens the dialog from the Settings card and sends `file` through it. */
async function uploadThroughDialog(page: Page, file: string): Promise<Locator> {
  await page.getByRole('button', { name: 'Upload a file' }).click();
  const dialog = importDialog(page);
  await expect(dialog.getByText(DIALOG_HEADER, { exact: true })).toBeVisible();
  const upload = dialog.getByRole('button', { name: 'Import', exact: true });
  await expect(upload).toBeDisabled();
  await chooseFile(page, dialog.getByLabel('CSV file'), file);
  await expect(upload).toBeEnabled();
  await upload.click();
  return dialog;
}

/** Monthly payments of distinct customers in the dialog's four columns. */
function dialogRows(count: number, prefix: string): string[] {
  return Array.from({ length: count }, (_, k) => `${prefix}${String(k + 1).padStart(5, '0')},2024-01-01,2024-02-01,${10 + (k % 90)}.50`);
}

test.describe('CSV imports', () => {
  test('imports a valid file through the Settings dialog, shows progress and counts, and Dismiss clears the result', async ({ page, request }, testInfo) => {
    await signInAsNewOwner(page, request, 'csv-ok');
    const file = writeCsv(testInfo, 'payments.csv', [DIALOG_HEADER, ...dialogRows(3, 'ok')]);
    await page.goto('/settings');
    await expect(page.getByRole('heading', { name: 'Import CSV' })).toBeVisible();

    const dialog = await uploadThroughDialog(page, file);
    // The upload is accepted: the progress view, the stored id and the started notice; the first poll comes after 3 s.
    // The file's name shows once the first poll tells it; until then the dialog says 'your file'.
    await expect(dialog.getByText(/^Importing (payments\.csv|your file)…$/)).toBeVisible();
    // At 0 % the bar has no width: its value is what is checked.
    await expect(dialog.getByRole('progressbar', { name: 'Import progress' })).toHaveAttribute('aria-valuetext', /^\d+%$/);
    await expect(page.getByText(/^Your import has started\./)).toBeVisible();
    await expect(page.getByRole('button', { name: 'Show progress' })).toBeVisible();
    expect(await storedImportId(page)).toMatch(/\S/);

    await expect(dialog.getByText('Import completed')).toBeVisible({ timeout: 20_000 });
    await expect(dialog.getByText('All rows are in your data.')).toBeVisible();
    await expect(dialog.getByLabel('Imported: 3')).toBeVisible();
    await expect(dialog.getByLabel('Failed: 0')).toBeVisible();
    await expect(dialog.getByRole('table')).toHaveCount(0);
    await expect(page.getByText('Your import is complete: 3 rows imported')).toBeVisible();
    await expect(cardBadge(page)).toHaveText('Import completed');
    await expect(page.getByRole('button', { name: 'Show result' })).toBeVisible();

    await dialog.getByRole('button', { name: 'Dismiss' }).click();
    await expect(dialog).toBeHidden();
    await expect(cardBadge(page)).toBeHidden();
    expect(await storedImportId(page)).toBeNull();
    await page.getByRole('button', { name: 'Upload a file' }).click();
    await expect(dialog.getByLabel('CSV file')).toBeVisible();
    await expect(dialog.getByRole('button', { name: 'Import', exact: true })).toBeDisabled();
  });

  test('lists the rows of a refused file with their number and message, toasts the failure, and Try again starts over', async ({ page, request }, testInfo) => {
    await signInAsNewOwner(page, request, 'csv-bad');
    const file = writeCsv(testInfo, 'broken.csv', [DIALOG_HEADER, 'bad00001,2024-01-01,2024-02-01,10.00', 'bad00002,2024-01-01']);
    await page.goto('/settings');

    const dialog = await uploadThroughDialog(page, file);
    await expect(dialog.getByRole('alert')).toContainText('Some rows of the file cannot be imported');
    await expect(dialog.getByRole('alert')).toContainText('1 row(s) of the file cannot be imported');
    const rows = dialog.getByRole('table', { name: 'Rows that cannot be imported' });
    await expect(rows.getByRole('row')).toHaveCount(2); // the header and the one refused row
    const refused = rows.getByRole('row').nth(1);
    await expect(refused.getByRole('cell').nth(0)).toHaveText('3');
    await expect(refused.getByRole('cell').nth(1)).toHaveText('bad00002,2024-01-01');
    await expect(refused.getByRole('cell').nth(2)).toHaveText(
      'Row 3 has 2 column(s); 4 are expected (Customer ID, Started at, Ended at, Monthly amount)',
    );
    await expect(page.getByText(FAILURE_TOAST, { exact: true })).toBeVisible();
    await expect(cardBadge(page)).toHaveText('Import failed');
    expect(await storedImportId(page)).toBeNull();

    await dialog.getByRole('button', { name: 'Try again' }).click();
    await expect(dialog.getByRole('alert')).toBeHidden();
    await expect(dialog.getByLabel('CSV file')).toBeVisible();
    await expect(dialog.getByLabel('CSV file')).not.toContainText('broken.csv');
    await expect(dialog.getByRole('button', { name: 'Import', exact: true })).toBeDisabled();
    await expect(cardBadge(page)).toBeHidden();
  });

  test('imports a 12-column file on the import page with the default mapping and lists the row with a bad date', async ({ page, request }, testInfo) => {
    await signInAsNewOwner(page, request, 'wizard');
    const file = writeCsv(testInfo, 'subscriptions.csv', [
      'customer_id,invoice_number,started_at,ended_at,note,months,monthly_amount,revenue_type,currency,product,customer_name,units',
      'wiz-1,INV-1,2025-01-01,2025-02-01,first,1,49.00,recurring,EUR,Pro,Acme Ltd,1',
      'wiz-2,INV-2,2025-02-01,2026-02-01,yearly,12,100.00,recurring,EUR,Team,Globex,5',
      'wiz-3,INV-3,2025-13-01,2026-01-01,broken,1,25.00,recurring,EUR,Pro,Initech,1',
    ]);
    await page.goto('/import-subscriptions');
    await expect(page.getByRole('heading', { level: 1, name: 'Import payments' })).toBeVisible();

    await chooseFile(page, page.getByLabel('CSV file'), file);
    await page.getByRole('button', { name: 'Upload', exact: true }).click();

    await expect(page.getByRole('heading', { name: 'Map the columns of subscriptions.csv' })).toBeVisible();
    await expect(page.getByText('4 rows · the first 4 shown below.', { exact: false })).toBeVisible();
    const preview = page.getByRole('table', { name: 'Preview of the first rows' });
    await expect(preview.getByRole('row', { name: 'Header row, skipped' })).toContainText('customer_id');
    await expect(preview.getByRole('row', { name: 'Row 2' })).toContainText('Acme Ltd');
    await expect(preview.getByRole('row', { name: 'Row 4' })).toContainText('2025-13-01');
    const defaults = [
      'Customer ID',
      'Invoice number',
      'Started at',
      'Ended at',
      'Not mapped',
      'Months',
      'Monthly amount',
      'Revenue type',
      'Currency',
      'Product',
      'Customer name',
      'Units',
    ];
    for (const [column, label] of defaults.entries()) {
      await expect(preview.getByRole('combobox', { name: `Field of column ${column + 1}`, exact: true })).toHaveValue(label);
    }
    const required = page.getByRole('list', { name: 'Required fields' });
    // Started at, Customer ID, 'Monthly amount or Total value', 'Months or Ended at' (the invoice number is optional).
    await expect(required.getByRole('listitem')).toHaveCount(4);
    await expect(required.getByRole('listitem', { name: /not mapped$/ })).toHaveCount(0);
    await expect(page.getByRole('switch', { name: 'Skip headers' })).toBeChecked();

    await page.getByRole('button', { name: 'Import 3 rows' }).click();
    await expect(page.getByText('Importing your payments…')).toBeVisible();
    await expect(page.getByRole('progressbar', { name: 'Import progress' })).toHaveAttribute('aria-valuetext', /^\d+%$/);

    await expect(page.getByText('Import finished with errors')).toBeVisible({ timeout: 20_000 });
    await expect(page.getByText('2 records imported, 1 row could not be imported.')).toBeVisible();
    const failures = page.getByRole('table', { name: 'Rows that could not be imported' });
    await expect(failures.getByRole('row')).toHaveCount(2);
    const failed = failures.getByRole('row').nth(1);
    await expect(failed.getByRole('cell').nth(0)).toHaveText('4');
    await expect(failed.getByRole('cell').nth(1)).toContainText('wiz-3,INV-3,2025-13-01');
    await expect(failed.getByRole('cell').nth(2)).toHaveText("Started at '2025-13-01' is not a date");
    await expect(page.getByRole('link', { name: 'Go to payments' })).toBeVisible();

    await page.getByRole('button', { name: 'Import another file' }).click();
    await expect(page.getByRole('button', { name: 'Upload', exact: true })).toBeVisible();
  });

  test('imports an open-ended payment and a prorated one through the dialog, refuses an end before the start, and the timeline has them', async ({ page, request }, testInfo) => {
    const owner = await signInAsNewOwner(page, request, 'csv-periods');
    const file = writeCsv(testInfo, 'periods.csv', [DIALOG_HEADER, 'open-1,2025-01-01,,99.00', 'prorated-1,2025-01-10,2025-02-25,100.00', 'backwards-1,2025-03-01,2025-02-01,10.00']);
    await page.goto('/settings');
    const dialog = await uploadThroughDialog(page, file);

    await expect(dialog.getByText('Import completed')).toBeVisible({ timeout: 20_000 });
    await expect(dialog.getByLabel('Imported: 2')).toBeVisible();
    await expect(dialog.getByLabel('Failed: 1')).toBeVisible();
    const failed = dialog.getByRole('table', { name: 'Rows that could not be imported' }).getByRole('row').nth(1);
    await expect(failed.getByRole('cell').nth(0)).toHaveText('4');
    await expect(failed.getByRole('cell').nth(2)).toHaveText('Ended at 2025-02-01 is before Started at 2025-03-01');

    // The customers' timelines: the open-ended payment without an end, the prorated one with its own.
    const timeline = async (customer: string) => {
      const response = await request.get(`/api/v11/customers/${customer}/timeline`, { headers: { authorization: `Bearer ${owner.token}` } });
      expect(response.status()).toBe(200);
      return ((await response.json()) as { items: { started_at: string; ended_at: string | null }[] }).items;
    };
    expect(await timeline('open-1')).toEqual([expect.objectContaining({ started_at: '2025-01-01', ended_at: null })]);
    expect(await timeline('prorated-1')).toEqual([expect.objectContaining({ started_at: '2025-01-10', ended_at: '2025-02-25' })]);
  });

  test('resumes a large dialog import from the stored id after a reload mid-import', async ({ page, request }, testInfo) => {
    // The import runs in the server's one PGlite session while the page reloads: the reload's own
    // reads wait behind its batches, for many seconds on a loaded machine.
    test.setTimeout(120_000);
    const rows = 20_000;
    await signInAsNewOwner(page, request, 'csv-big');
    const file = writeCsv(testInfo, 'large.csv', [DIALOG_HEADER, ...dialogRows(rows, 'big')]);
    await page.goto('/settings');

    const dialog = await uploadThroughDialog(page, file);
    await expect(dialog.getByText(/^Importing (large\.csv|your file)…$/)).toBeVisible({ timeout: 20_000 });
    const importId = await storedImportId(page);
    expect(importId).toMatch(/\S/);
    await expect(dialog.getByText('Import completed')).toBeHidden();

    await page.reload();
    // The card resumes the stored import at once: still running, or already done on its first poll.
    await expect(cardBadge(page)).toHaveText(/^(Import in progress \(\d+%\)|Import completed)$/, { timeout: 45_000 });
    await expect(page.getByRole('button', { name: /^(Show progress|Show result)$/ })).toBeVisible();
    const resumedAs = await cardBadge(page).textContent();
    testInfo.annotations.push({ type: 'resumed as', description: resumedAs ?? '' });
    expect(await storedImportId(page)).toBe(importId);

    await page.getByRole('button', { name: /^(Show progress|Show result)$/ }).click();
    await expect(dialog.getByText('Import completed')).toBeVisible({ timeout: 45_000 });
    await expect(dialog.getByLabel(`Imported: ${rows}`)).toBeVisible();
    await expect(dialog.getByLabel('Failed: 0')).toBeVisible();
    await expect(cardBadge(page)).toHaveText('Import completed');
  });

  test('steps back through an import actor in the state inspector and shows the server audit log', async ({ page, request }, testInfo) => {
    await signInAsNewOwner(page, request, 'inspect');
    const file = writeCsv(testInfo, 'inspected.csv', [DIALOG_HEADER, ...dialogRows(2, 'ins')]);
    await page.goto('/settings');
    const dialog = await uploadThroughDialog(page, file);
    await expect(dialog.getByText('Import completed')).toBeVisible({ timeout: 20_000 });
    const importId = (await storedImportId(page)) ?? '';
    await page.keyboard.press('Escape');
    await expect(dialog).toBeHidden();

    // From the user menu (first out of the way: the import toasts cover its items).
    await closeToasts(page);
    await page.getByRole('button', { name: 'User menu' }).click();
    await page.getByRole('menuitem', { name: 'Inspector' }).click();
    const inspector = page.getByRole('dialog', { name: 'State inspector' });
    await expect(inspector).toBeVisible();
    const actors = inspector.getByRole('navigation', { name: 'Actors' });
    await expect(actors.getByRole('button', { name: /^auth#\d+/ })).toBeVisible();
    const csvActor = actors.getByRole('button', { name: /^csvImport#\d+/ });
    await expect(csvActor).toContainText('completed');
    await csvActor.click();
    await expect(csvActor).toHaveAttribute('aria-current', 'true');
    await expect(inspector.getByText(`import ${importId}`, { exact: false }).first()).toBeVisible();

    const state = inspector.getByRole('region', { name: 'State', exact: true });
    const stepping = inspector.getByRole('region', { name: 'Step through the snapshots' });
    const back = stepping.getByRole('button', { name: 'Back' });
    await expect(state).toContainText('"completed"');
    await expect(stepping.getByRole('button', { name: 'Forward' })).toBeDisabled();
    const latestStep = await stepping.getByText(/^Snapshot \d+ of \d+/).textContent();
    const total = Number(/of (\d+)/.exec(latestStep ?? '')?.[1]);
    expect(latestStep).toContain(`Snapshot ${total} of ${total}`);

    await back.click();
    await expect(stepping.getByText(new RegExp(`^Snapshot ${total - 1} of ${total}`))).toBeVisible();
    await expect(state).toContainText('"inProgress": "fetching"');
    await expect(stepping.getByText('Showing a recorded snapshot; the live actor is not affected.')).toBeVisible();
    await page.keyboard.press('ArrowLeft');
    await expect(stepping.getByText(new RegExp(`^Snapshot ${total - 2} of ${total}`))).toBeVisible();
    await expect(state).toContainText('"inProgress": "waiting"');
    const log = inspector.getByRole('table', { name: 'Event log entries' });
    await expect(log.locator('tr[aria-current="step"]')).toContainText('inProgress.waiting');
    await expect(log.getByText('csvImport.upload', { exact: true })).toBeVisible();
    await page.keyboard.press('ArrowRight');
    await stepping.getByRole('button', { name: 'Forward' }).click();
    await expect(state).toContainText('"completed"');

    const audit = inspector.getByRole('table', { name: 'Server audit log entries' });
    for (const event of ['upload started', 'queued', 'validation started', 'commit started', 'committed']) {
      await expect(audit.getByRole('cell', { name: event, exact: true })).toBeVisible();
    }
    await expect(inspector.getByText(/server status done \(100%\)/)).toBeVisible();

    // Export the trace, then read it back as a loaded actor that carries the audit log.
    const download = page.waitForEvent('download');
    await inspector.getByRole('button', { name: 'Export trace' }).click();
    const tracePath = testInfo.outputPath('trace.json');
    await (await download).saveAs(tracePath);
    const trace = JSON.parse(readFileSync(tracePath, 'utf8')) as { actors: { name: string; importId?: string }[] };
    expect(trace.actors.map((actor) => [actor.name, actor.importId])).toEqual([['csvImport', importId]]);
    await chooseFile(page, inspector.getByLabel('Import trace'), tracePath);
    await expect(inspector.getByRole('status')).toContainText('Loaded 1 actor from trace.json');
    await expect(actors.getByRole('button', { name: /^csvImport#\d+ \(loaded\)/ })).toHaveAttribute('aria-current', 'true');
    await expect(inspector.getByText('(from the trace file)', { exact: false })).toBeVisible();
    await expect(audit.getByRole('cell', { name: 'committed', exact: true })).toBeVisible();

    // Through ?inspect=1: the reloaded page resumes the stored (not dismissed) import into its result.
    await page.goto('/settings?inspect=1');
    await expect(inspector).toBeVisible();
    const resumed = actors.getByRole('button', { name: /^csvImport#\d+/ });
    await expect(resumed).toContainText('completed');
    await resumed.click();
    await expect(state).toContainText('"completed"');
    await back.click();
    await expect(state).toContainText('"inProgress": "fetching"');
    await page.keyboard.press('ArrowLeft');
    await expect(state).toContainText('"checkingStored"');
    await expect(audit.getByRole('cell', { name: 'committed', exact: true })).toBeVisible();
    await inspector.getByRole('button', { name: 'Close the inspector' }).click();
    await expect(inspector).toBeHidden();
  });
});
