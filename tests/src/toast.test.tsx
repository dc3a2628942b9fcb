import { act, screen } from '@testing-library/react';
import { notifications } from '@mantine/notifications';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  toastClipboardCopy,
  toastConnectionLost,
  toastConnectionReestablished,
  toastError,
  toastExportComplete,
  toastExportStarted,
  toastExportStartFailure,
  toastFilterWarning,
  toastImportNotice,
  toastInvoicesProcessing,
  toastPresentHotKeys,
  toastRuleAdded,
  toastSuccess,
  toastSyncComplete,
} from '../../src/notifications/toast';
import { renderWithProviders } from './renderApp';

afterEach(() => {
  vi.restoreAllMocks();
});

function lastShown() {
  const show = vi.mocked(notifications.show);
  const call = show.mock.calls.at(-1);
  if (!call) throw new Error('notifications.show was not called');
  return call[0];
}

describe('toast durations follow the specification', () => {
  it.each([
    ['error', () => toastError('Could not update your report’s range'), 10_000],
    ['success', () => toastSuccess(), 1_000],
    ['import notice', () => toastImportNotice('Import started'), 30_000],
    ['export started', () => toastExportStarted(), 5_000],
    ['export start failure', () => toastExportStartFailure(), 30_000],
    ['clipboard copy', () => toastClipboardCopy(), 3_000],
    ['present-mode hot keys', () => toastPresentHotKeys('Use arrows to move between slides'), 3_500],
    ['filter warning', () => toastFilterWarning(), 4_000],
    ['rule added', () => toastRuleAdded('Rule added'), 2_000],
    ['sync complete', () => toastSyncComplete('Stripe is synced'), 10_000],
    ['invoices processing', () => toastInvoicesProcessing('Invoices are being processed'), 30_000],
  ])('%s lasts %s ms', (_, showToast, durationMs) => {
    vi.spyOn(notifications, 'show');
    showToast();
    expect(lastShown().autoClose).toBe(durationMs);
  });

  it.each([
    ['connection lost', () => toastConnectionLost()],
    ['export complete', () => toastExportComplete('Your export is ready', 'https://files.example.com/export.csv')],
  ])('%s stays until closed', (_, showToast) => {
    vi.spyOn(notifications, 'show');
    showToast();
    expect(lastShown().autoClose).toBe(false);
  });

  it('shows errors as danger with the default message', () => {
    vi.spyOn(notifications, 'show');
    toastError();
    expect(lastShown()).toMatchObject({ message: 'Something went wrong', color: 'red', autoClose: 10_000 });
  });

  it("defaults the success message to 'Operation succeeded'", () => {
    vi.spyOn(notifications, 'show');
    toastSuccess();
    expect(lastShown()).toMatchObject({ message: 'Operation succeeded', autoClose: 1_000 });
  });
});

describe('toasts on screen', () => {
  it('renders an error toast', async () => {
    renderWithProviders(null);
    act(() => {
      toastError('We could not fetch costs');
    });
    expect(await screen.findByText('We could not fetch costs')).toBeInTheDocument();
  });

  it('turns the connection-lost notice into "Connection re-established" for 2 s', async () => {
    renderWithProviders(null);
    act(() => {
      toastConnectionLost();
    });
    expect(await screen.findByText('Connection lost. Trying to reconnect…')).toBeInTheDocument();

    const update = vi.spyOn(notifications, 'update');
    act(() => {
      toastConnectionReestablished();
    });

    expect(await screen.findByText('Connection re-established')).toBeInTheDocument();
    expect(screen.queryByText('Connection lost. Trying to reconnect…')).not.toBeInTheDocument();
    expect(update.mock.calls.at(-1)?.[0]).toMatchObject({ autoClose: 2_000 });
  });

  it('offers the download of a finished export', async () => {
    renderWithProviders(null);
    act(() => {
      toastExportComplete('Your export is ready', 'https://files.example.com/export.csv');
    });
    expect(await screen.findByRole('link', { name: 'Download' })).toHaveAttribute(
      'href',
      'https://files.example.com/export.csv',
    );
  });
});
