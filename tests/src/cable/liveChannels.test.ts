import { adapters } from '@rails/actioncable';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { cableUrl } from '../../../src/cable/cableUrl';
import { createLiveChannels } from '../../../src/cable/liveChannels';
import type { ChannelHandlers, ConnectionNotices } from '../../../src/cable/liveChannels';

/**
 * The live channels over the real @rails/actioncable consumer, with the browser's WebSocket
 * replaced by a fake the test plays the server through (the Action Cable frames of
 * server/cable/protocol.ts), on fake timers for the consumer's reconnecting.
 */

type Frame = Record<string, unknown>;

class FakeSocket {
  static readonly CONNECTING = 0;
  static readonly OPEN = 1;
  static readonly CLOSING = 2;
  static readonly CLOSED = 3;
  static sockets: FakeSocket[] = [];

  readonly CONNECTING = 0;
  readonly OPEN = 1;
  readonly CLOSING = 2;
  readonly CLOSED = 3;
  readyState = 0;
  protocol = '';
  readonly sent: Frame[] = [];
  onopen: ((event: unknown) => void) | null = null;
  onmessage: ((event: { data: string }) => void) | null = null;
  onclose: ((event: unknown) => void) | null = null;
  onerror: ((event: unknown) => void) | null = null;
  private openListeners: Array<() => void> = [];

  constructor(
    readonly url: string,
    readonly protocols: string[],
  ) {
    FakeSocket.sockets.push(this);
  }

  send(data: string): void {
    this.sent.push(JSON.parse(data) as Frame);
  }

  close(): void {
    if (this.readyState === FakeSocket.CLOSED) return;
    this.readyState = FakeSocket.CLOSED;
    this.onclose?.({});
  }

  addEventListener(type: string, listener: () => void): void {
    if (type === 'open') this.openListeners.push(listener);
  }

  // The server's side.
  accept(protocol = 'actioncable-v1-json'): void {
    this.readyState = FakeSocket.OPEN;
    this.protocol = protocol;
    this.onopen?.({});
    for (const listener of this.openListeners.splice(0)) listener();
  }

  receive(frame: Frame): void {
    this.onmessage?.({ data: JSON.stringify(frame) });
  }

  /** The connection drops (the server went away). */
  drop(): void {
    this.close();
  }

  commands(command: string): Frame[] {
    return this.sent.filter((frame) => frame.command === command);
  }
}

const originalWebSocket = adapters.WebSocket;
const IDENTIFIER = JSON.stringify({ channel: 'SegmentsImportChannel', id: 'imp_1' });
const OTHER = JSON.stringify({ channel: 'SegmentsImportChannel', id: 'imp_2' });

function handlers() {
  return { connected: vi.fn<() => void>(), lost: vi.fn<() => void>(), received: vi.fn<(message: unknown) => void>() } satisfies ChannelHandlers;
}

function setup() {
  let token: string | null = 'token-1';
  const notices = { lost: vi.fn(), restored: vi.fn(), dismissed: vi.fn() } satisfies ConnectionNotices;
  const channels = createLiveChannels({ url: () => cableUrl(token), notices });
  return {
    channels,
    notices,
    setToken: (next: string | null) => {
      token = next;
    },
    socket: (): FakeSocket => {
      const socket = FakeSocket.sockets.at(-1);
      if (!socket) throw new Error('no socket was opened');
      return socket;
    },
  };
}

/** The server accepts the socket and welcomes it (the consumer then subscribes). */
function welcome(socket: FakeSocket) {
  socket.accept();
  socket.receive({ type: 'welcome' });
}

beforeEach(() => {
  FakeSocket.sockets = [];
  adapters.WebSocket = FakeSocket as unknown as typeof WebSocket;
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
  adapters.WebSocket = originalWebSocket;
});

describe('the live channels consumer', () => {
  it("connects with the first subscription to /cable, carrying the API version and the user's token, in Action Cable's subprotocols", () => {
    const { channels, socket } = setup();
    expect(FakeSocket.sockets).toHaveLength(0);
    channels.subscribe({ channel: 'SegmentsImportChannel', id: 'imp_1' }, handlers());

    const url = new URL(socket().url);
    expect(url.protocol).toBe('ws:');
    expect(url.host).toBe(window.location.host);
    expect(url.pathname).toBe('/cable');
    expect(Object.fromEntries(url.searchParams)).toEqual({ api_version: '11', token: 'token-1' });
    expect(socket().protocols).toEqual(['actioncable-v1-json', 'actioncable-unsupported']);
  });

  it('subscribes once welcomed, and hands over the confirmation and the messages of its identifier', () => {
    const { channels, socket } = setup();
    const heard = handlers();
    channels.subscribe({ channel: 'SegmentsImportChannel', id: 'imp_1' }, heard);
    welcome(socket());
    expect(socket().commands('subscribe')).toEqual([{ command: 'subscribe', identifier: IDENTIFIER }]);

    socket().receive({ type: 'confirm_subscription', identifier: IDENTIFIER });
    expect(heard.connected).toHaveBeenCalledTimes(1);
    socket().receive({ type: 'ping', message: 1_772_442_000 });
    socket().receive({ identifier: IDENTIFIER, message: { import_id: 'imp_1', progress: 50 } });
    socket().receive({ identifier: OTHER, message: { import_id: 'imp_2' } });
    expect(heard.received).toHaveBeenCalledTimes(1);
    expect(heard.received).toHaveBeenCalledWith({ import_id: 'imp_1', progress: 50 });
    expect(heard.lost).not.toHaveBeenCalled();
  });

  it('reports a rejected subscription as lost, with no connection notice', () => {
    const { channels, socket, notices } = setup();
    const heard = handlers();
    channels.subscribe({ channel: 'SegmentsImportChannel', id: 'imp_1' }, heard);
    welcome(socket());
    socket().receive({ type: 'reject_subscription', identifier: IDENTIFIER });
    expect(heard.lost).toHaveBeenCalledTimes(1);
    expect(heard.connected).not.toHaveBeenCalled();
    expect(notices.lost).not.toHaveBeenCalled();
  });

  it("shows the lost notice once on a drop, reconnects with the token of that moment, resubscribes and says it is re-established once", async () => {
    const { channels, socket, notices, setToken } = setup();
    const first = handlers();
    const second = handlers();
    channels.subscribe({ channel: 'SegmentsImportChannel', id: 'imp_1' }, first);
    channels.subscribe({ channel: 'SegmentsImportChannel', id: 'imp_2' }, second);
    const dropped = socket();
    welcome(dropped);
    dropped.receive({ type: 'confirm_subscription', identifier: IDENTIFIER });
    dropped.receive({ type: 'confirm_subscription', identifier: OTHER });

    dropped.drop();
    expect(notices.lost).toHaveBeenCalledTimes(1);
    expect(first.lost).toHaveBeenCalledTimes(1);
    expect(second.lost).toHaveBeenCalledTimes(1);

    setToken('token-2');
    await vi.advanceTimersByTimeAsync(30_000);
    expect(FakeSocket.sockets).toHaveLength(2);
    const again = socket();
    expect(new URL(again.url).searchParams.get('token')).toBe('token-2');
    welcome(again);
    expect(again.commands('subscribe').map((frame) => frame.identifier).sort()).toEqual([IDENTIFIER, OTHER].sort());
    again.receive({ type: 'confirm_subscription', identifier: IDENTIFIER });
    again.receive({ type: 'confirm_subscription', identifier: OTHER });
    expect(notices.restored).toHaveBeenCalledTimes(1);
    expect(first.connected).toHaveBeenCalledTimes(2);
    expect(second.connected).toHaveBeenCalledTimes(2);
  });

  it("stops when the server says unauthorized (no reconnect): the subscription is lost, with no notice", async () => {
    const { channels, socket, notices } = setup();
    const heard = handlers();
    channels.subscribe({ channel: 'SegmentsImportChannel', id: 'imp_1' }, heard);
    welcome(socket());
    socket().receive({ type: 'confirm_subscription', identifier: IDENTIFIER });
    socket().receive({ type: 'disconnect', reason: 'unauthorized', reconnect: false });

    expect(socket().readyState).toBe(FakeSocket.CLOSED);
    expect(heard.lost).toHaveBeenCalledTimes(1);
    expect(notices.lost).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(120_000);
    expect(FakeSocket.sockets).toHaveLength(1);
  });

  it('closes the connection a moment after the last subscription ends; subscribing again in between keeps it', async () => {
    const { channels, socket } = setup();
    const unsubscribe = channels.subscribe({ channel: 'SegmentsImportChannel', id: 'imp_1' }, handlers());
    welcome(socket());
    unsubscribe();
    expect(socket().commands('unsubscribe')).toEqual([{ command: 'unsubscribe', identifier: IDENTIFIER }]);
    await vi.advanceTimersByTimeAsync(500);
    // A remount subscribes again: the same connection.
    const again = channels.subscribe({ channel: 'SegmentsImportChannel', id: 'imp_1' }, handlers());
    await vi.advanceTimersByTimeAsync(5_000);
    expect(socket().readyState).toBe(FakeSocket.OPEN);
    expect(FakeSocket.sockets).toHaveLength(1);

    again();
    await vi.advanceTimersByTimeAsync(1_000);
    expect(socket().readyState).toBe(FakeSocket.CLOSED);
  });

  it('on close (sign-out) ends every subscription, closes the socket, takes the lost notice away, and starts afresh next time', async () => {
    const { channels, socket, notices, setToken } = setup();
    const heard = handlers();
    channels.subscribe({ channel: 'SegmentsImportChannel', id: 'imp_1' }, heard);
    welcome(socket());
    socket().receive({ type: 'confirm_subscription', identifier: IDENTIFIER });
    socket().drop();
    expect(notices.lost).toHaveBeenCalledTimes(1);

    channels.close();
    expect(heard.lost).toHaveBeenCalledTimes(2);
    expect(notices.dismissed).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(120_000);
    expect(FakeSocket.sockets).toHaveLength(1);

    setToken('token-of-the-next-user');
    channels.subscribe({ channel: 'SegmentsImportChannel', id: 'imp_1' }, handlers());
    expect(FakeSocket.sockets).toHaveLength(2);
    expect(new URL(socket().url).searchParams.get('token')).toBe('token-of-the-next-user');
  });

  it('closes a socket that was still opening when it closed', () => {
    const { channels, socket } = setup();
    channels.subscribe({ channel: 'SegmentsImportChannel', id: 'imp_1' }, handlers());
    const opening = socket();
    channels.close();
    expect(opening.readyState).toBe(FakeSocket.CONNECTING);
    opening.accept();
    expect(opening.readyState).toBe(FakeSocket.CLOSED);
  });
});
