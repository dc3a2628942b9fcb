import { createContext, useContext, useEffect } from 'react';
import type { ReactNode } from 'react';
import { selectIsSignedIn } from '../../machines/auth/selectors';
import { useAuthSelector } from '../session/SessionContext';
import { appLiveChannels } from './appCable';
import type { LiveChannels } from './liveChannels';

const LiveChannelsContext = createContext<LiveChannels>(appLiveChannels);

/** Gives the views below other live channels than the app's (tests). */
export function LiveChannelsProvider({ channels, children }: { channels: LiveChannels; children: ReactNode }) {
  return <LiveChannelsContext value={channels}>{children}</LiveChannelsContext>;
}

/**
 * The live channels a view subscribes through: `channels` when given, else the provider's (the
 * app's by default). They are closed as soon as the session ends (sign-out, an expired
 * session): the connection carried the user's token. Must sit inside the AuthProvider.
 */
export function useLiveChannels(channels?: LiveChannels): LiveChannels {
  const provided = useContext(LiveChannelsContext);
  const live = channels ?? provided;
  const signedIn = useAuthSelector(selectIsSignedIn);
  useEffect(() => {
    if (!signedIn) live.close();
  }, [signedIn, live]);
  return live;
}
