import { tokenStore } from '../api/tokenStore';
import { cableUrl } from './cableUrl';
import { connectionNotices } from './connectionNotice';
import { createLiveChannels } from './liveChannels';

/**
 * The app's one live-channel consumer: `/cable` with the API version and the stored token
 * (read again at every reconnection), the connection notices as toasts. It connects with the
 * first subscription; sign-out closes it (useLiveChannels).
 */
export const appLiveChannels = createLiveChannels({
  url: () => cableUrl(tokenStore.get()),
  notices: connectionNotices,
});
