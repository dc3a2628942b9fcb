import { notifications } from '@mantine/notifications';
import { LIVE_CONNECTION_TOAST_ID, toastConnectionLost, toastConnectionReestablished } from '../notifications/toast';
import type { ConnectionNotices } from './liveChannels';

/**
 * The spec's connection notice: a live-channel disconnect shows the connection-lost toast (it
 * stays), and the reconnection turns it into 'Connection re-established' (2 s). When nothing
 * listens any more (the page was left, or sign-out) a lost notice is taken away.
 */
export const connectionNotices: ConnectionNotices = {
  lost: () => {
    toastConnectionLost();
  },
  restored: () => {
    toastConnectionReestablished();
  },
  dismissed: () => {
    notifications.hide(LIVE_CONNECTION_TOAST_ID);
  },
};
