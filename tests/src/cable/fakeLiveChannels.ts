import { act } from '@testing-library/react';
import type { ChannelHandlers, ChannelParams, LiveChannels } from '../../../src/cable/liveChannels';

/** A subscription made through the fake live channels. */
export interface FakeSubscription {
  params: ChannelParams;
  handlers: ChannelHandlers;
  active: boolean;
}

export interface FakeLiveChannels {
  channels: LiveChannels;
  subscriptions: FakeSubscription[];
  /** The subscriptions still held. */
  active(): FakeSubscription[];
  /** How many times the channels were closed (sign-out). */
  closeCount(): number;
  /** The server side: tells the one active subscription something (inside act). */
  tell(what: (handlers: ChannelHandlers) => void): void;
}

/** Live channels without a socket: tests see who subscribes and play the server's part. */
export function createFakeLiveChannels(): FakeLiveChannels {
  const subscriptions: FakeSubscription[] = [];
  let closed = 0;
  const active = () => subscriptions.filter((subscription) => subscription.active);
  const channels: LiveChannels = {
    subscribe(params, handlers) {
      const subscription: FakeSubscription = { params, handlers, active: true };
      subscriptions.push(subscription);
      return () => {
        subscription.active = false;
      };
    },
    close() {
      closed += 1;
      for (const subscription of active()) {
        subscription.active = false;
        subscription.handlers.lost?.();
      }
    },
  };
  return {
    channels,
    subscriptions,
    active,
    closeCount: () => closed,
    tell(what) {
      const held = active();
      if (held.length !== 1) throw new Error(`${held.length} live subscriptions are held`);
      act(() => what((held[0] as FakeSubscription).handlers));
    },
  };
}
