import { createConsumer } from '@rails/actioncable';
import type { Consumer } from '@rails/actioncable';

/** A subscription's params: the channel's name and its own params (`{channel: 'SegmentsImportChannel', id}`). */
export interface ChannelParams {
  channel: string;
  [key: string]: unknown;
}

/** What a subscriber hears from its channel. */
export interface ChannelHandlers {
  /** The subscription is confirmed (again, after a reconnect). */
  connected?(): void;
  /**
   * The subscription stopped hearing: the connection dropped (the consumer reconnects and
   * resubscribes unless the server said not to), the server rejected it, or the channels were
   * closed (sign-out). Whatever it waits for must be had some other way meanwhile.
   */
  lost?(): void;
  received?(message: unknown): void;
}

/** The app's live channels: subscribe to one; close all (sign-out). */
export interface LiveChannels {
  /** Subscribes; the returned function unsubscribes. */
  subscribe(params: ChannelParams, handlers: ChannelHandlers): () => void;
  /** Closes the connection and ends every subscription (each hears `lost`). */
  close(): void;
}

/** What the user is told about the connection (src/cable/connectionNotice.ts). */
export interface ConnectionNotices {
  /** The connection dropped while subscribed; the consumer is reconnecting. */
  lost(): void;
  /** It is back after a loss. */
  restored(): void;
  /** Nothing listens any more: a loss notice on screen is moot. */
  dismissed(): void;
}

export interface LiveChannelsOptions {
  /** The consumer's address, asked at each (re)connection so it carries the current token. */
  url: () => string;
  notices: ConnectionNotices;
  /** Makes the Action Cable consumer (tests may wrap it). */
  createConsumer?: (url: () => string) => Consumer;
  /**
   * Once nothing is subscribed, the connection closes after this long (a page remounting in
   * between, as React's development double effects do, keeps it).
   */
  idleCloseMs?: number;
}

/**
 * Disconnects the consumer without reconnecting. The consumer leaves a socket that is still
 * opening alone (a Safari bug it works around), so that one is closed once it opens.
 */
function closeConsumer(consumer: Consumer): void {
  consumer.disconnect();
  // The consumer's Connection is internal to @rails/actioncable (src/connection.js): read, never changed.
  const socket = (consumer as unknown as { connection?: { webSocket?: WebSocket } }).connection?.webSocket;
  if (socket && socket.readyState === socket.CONNECTING) socket.addEventListener('open', () => socket.close(), { once: true });
}

interface Entry {
  handlers: ChannelHandlers;
  ended: boolean;
  unsubscribe(): void;
}

/**
 * Live channels over one `@rails/actioncable` consumer, which speaks the Action Cable protocol
 * to `/cable` and does the reconnecting (with backoff), the heartbeat watch and the
 * resubscribing. The connection opens with the first subscription and closes when the last one
 * ends. A drop while subscribed shows the connection-lost notice once (however many
 * subscriptions heard it), and the first confirmation after it turns it into 'Connection
 * re-established'. A disconnect the server asked for without reconnecting (an expired or
 * revoked token) shows no notice: the API's 401 handles the session.
 */
export function createLiveChannels(options: LiveChannelsOptions): LiveChannels {
  const makeConsumer = options.createConsumer ?? ((url: () => string) => createConsumer(url));
  const idleCloseMs = options.idleCloseMs ?? 1_000;
  let consumer: Consumer | null = null;
  const entries = new Set<Entry>();
  let lost = false;
  let idleTimer: ReturnType<typeof setTimeout> | undefined;

  const connectionLost = () => {
    if (lost) return;
    lost = true;
    options.notices.lost();
  };
  const connectionBack = () => {
    if (!lost) return;
    lost = false;
    options.notices.restored();
  };
  const forgetLoss = () => {
    if (!lost) return;
    lost = false;
    options.notices.dismissed();
  };

  const disconnect = () => {
    clearTimeout(idleTimer);
    idleTimer = undefined;
    if (consumer) closeConsumer(consumer);
    // A new consumer next time: its address is asked again (with whoever is signed in then).
    consumer = null;
    forgetLoss();
  };

  const end = (entry: Entry) => {
    if (entry.ended) return;
    entry.ended = true;
    entries.delete(entry);
    entry.unsubscribe();
  };

  return {
    subscribe(params, handlers) {
      clearTimeout(idleTimer);
      idleTimer = undefined;
      consumer ??= makeConsumer(options.url);
      const entry: Entry = { handlers, ended: false, unsubscribe: () => {} };
      const subscription = consumer.subscriptions.create(params, {
        connected() {
          if (entry.ended) return;
          connectionBack();
          handlers.connected?.();
        },
        disconnected({ willAttemptReconnect }: { willAttemptReconnect: boolean | undefined }) {
          if (entry.ended) return;
          if (willAttemptReconnect) connectionLost();
          handlers.lost?.();
        },
        rejected() {
          if (entry.ended) return;
          handlers.lost?.();
        },
        received(message: unknown) {
          if (!entry.ended) handlers.received?.(message);
        },
      });
      entry.unsubscribe = () => subscription.unsubscribe();
      entries.add(entry);
      return () => {
        end(entry);
        if (entries.size === 0 && idleTimer === undefined) idleTimer = setTimeout(disconnect, idleCloseMs);
      };
    },

    close() {
      const ending = [...entries];
      for (const entry of ending) end(entry);
      disconnect();
      for (const entry of ending) entry.handlers.lost?.();
    },
  };
}
