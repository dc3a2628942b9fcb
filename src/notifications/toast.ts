import { createElement } from 'react';
import type { ReactNode } from 'react';
import { notifications, notificationsStore } from '@mantine/notifications';
import type { NotificationData } from '@mantine/notifications';
import { TOAST_AUTO_CLOSE_MS } from '../../models/constants';
import type { ToastKind } from '../../models/constants';
import { ExportReadyMessage } from './ExportReadyMessage';

/** Colour of each toast kind: errors are 'danger' (red), confirmations green, notices blue. */
const TOAST_COLOR: Record<ToastKind, string> = {
  error: 'red',
  success: 'teal',
  importNotice: 'blue',
  exportStarted: 'blue',
  exportStartFailure: 'red',
  exportComplete: 'teal',
  clipboardCopy: 'teal',
  connectionLost: 'orange',
  connectionReestablished: 'teal',
  presentHotKeys: 'gray',
  filterWarning: 'yellow',
  ruleAdded: 'teal',
  syncComplete: 'teal',
  invoicesProcessing: 'blue',
};

export type ToastOptions = Omit<NotificationData, 'message' | 'autoClose' | 'color'>;

/** Shows a toast of the given kind with the spec's duration and colour. Returns its id. */
export function toast(kind: ToastKind, message: ReactNode, options: ToastOptions = {}): string {
  return notifications.show({
    closeButtonProps: { 'aria-label': 'Close notification' },
    ...options,
    message,
    color: TOAST_COLOR[kind],
    autoClose: TOAST_AUTO_CLOSE_MS[kind],
  });
}

export const DEFAULT_ERROR_TOAST = 'Something went wrong';
export const DEFAULT_SUCCESS_TOAST = 'Operation succeeded';

/** Danger toast, 10 s. */
export function toastError(message: ReactNode = DEFAULT_ERROR_TOAST, options?: ToastOptions): string {
  return toast('error', message, options);
}

/** Success toast, 1 s. */
export function toastSuccess(message: ReactNode = DEFAULT_SUCCESS_TOAST, options?: ToastOptions): string {
  return toast('success', message, options);
}

/** Import notice, 30 s. */
export function toastImportNotice(message: ReactNode, options?: ToastOptions): string {
  return toast('importNotice', message, options);
}

/** Export started, 5 s. */
export function toastExportStarted(
  message: ReactNode = 'Your export is in progress. We will notify you once completed',
  options?: ToastOptions,
): string {
  return toast('exportStarted', message, options);
}

/** Export could not start, 30 s. */
export function toastExportStartFailure(
  message: ReactNode = 'We could not start your export, please try again later',
  options?: ToastOptions,
): string {
  return toast('exportStartFailure', message, options);
}

/** Export finished: stays until closed, with a download action. */
export function toastExportComplete(message: ReactNode, downloadUrl: string, options?: ToastOptions): string {
  return toast('exportComplete', createElement(ExportReadyMessage, { message, downloadUrl }), options);
}

/** Copied to the clipboard, 3 s. */
export function toastClipboardCopy(message: ReactNode = 'Copied to clipboard', options?: ToastOptions): string {
  return toast('clipboardCopy', message, options);
}

/** The id shared by the connection-lost notice and its 'Connection re-established' replacement. */
export const LIVE_CONNECTION_TOAST_ID = 'live-connection';

/** Live channel lost: stays until the connection comes back. */
export function toastConnectionLost(
  message: ReactNode = 'Connection lost. Trying to reconnect…',
  options?: ToastOptions,
): string {
  return toast('connectionLost', message, { id: LIVE_CONNECTION_TOAST_ID, ...options });
}

/** Turns the connection-lost notice into 'Connection re-established' for 2 s (or shows it anew). */
export function toastConnectionReestablished(message: ReactNode = 'Connection re-established'): string {
  const { notifications: shown, queue } = notificationsStore.getState();
  const lostNoticeShown = [...shown, ...queue].some((item) => item.id === LIVE_CONNECTION_TOAST_ID);
  if (!lostNoticeShown) return toast('connectionReestablished', message, { id: LIVE_CONNECTION_TOAST_ID });
  notifications.update({
    id: LIVE_CONNECTION_TOAST_ID,
    message,
    color: TOAST_COLOR.connectionReestablished,
    autoClose: TOAST_AUTO_CLOSE_MS.connectionReestablished,
  });
  return LIVE_CONNECTION_TOAST_ID;
}

/** Presentation mode's key help, 3.5 s. */
export function toastPresentHotKeys(message: ReactNode, options?: ToastOptions): string {
  return toast('presentHotKeys', message, options);
}

/** Filter refused while editing or refreshing, 4 s. */
export function toastFilterWarning(
  message: ReactNode = 'Report cannot be filtered when in Edit mode or it is being refreshed',
  options?: ToastOptions,
): string {
  return toast('filterWarning', message, options);
}

/** Import rule added, 2 s. */
export function toastRuleAdded(message: ReactNode, options?: ToastOptions): string {
  return toast('ruleAdded', message, options);
}

/** Integration sync complete, 10 s. */
export function toastSyncComplete(message: ReactNode, options?: ToastOptions): string {
  return toast('syncComplete', message, options);
}

/** Rejected invoices being processed, 30 s. */
export function toastInvoicesProcessing(message: ReactNode, options?: ToastOptions): string {
  return toast('invoicesProcessing', message, options);
}
