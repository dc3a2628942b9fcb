/**
 * The Action Cable wire protocol (`actioncable-v1-json`), as the maintained `@rails/actioncable`
 * consumer speaks it (its src/internal.js and connection.js). Every frame is one JSON text.
 *
 * Server → client:
 * - `{"type":"welcome"}` once the connection is accepted (the client then (re)subscribes);
 * - `{"type":"ping","message":<unix seconds>}` every 3 s (the client calls a connection stale
 *   after 6 s without a frame and reopens it);
 * - `{"type":"confirm_subscription","identifier":"…"}` / `{"type":"reject_subscription",…}`;
 * - `{"identifier":"…","message":…}`: a message to one subscription (no type);
 * - `{"type":"disconnect","reason":"unauthorized"|"invalid_request"|"server_restart","reconnect":bool}`
 *   before the server closes the socket; `reconnect: false` stops the client's reconnecting.
 *
 * Client → server: `{"command":"subscribe"|"unsubscribe"|"message","identifier":"…","data":"…"}`
 * where `identifier` is the JSON text of the subscription's params (`{"channel":"…",…}`),
 * echoed back as is.
 */

/** The subprotocols the server accepts, best first; the client offers both. */
export const CABLE_PROTOCOLS = ['actioncable-v1-json', 'actioncable-unsupported'] as const;

/** Where the cable is served (the consumer's default mount path). */
export const CABLE_PATH = '/cable';

/** The heartbeat: a ping to every connection this often (Action Cable's BEAT_INTERVAL). */
export const CABLE_PING_INTERVAL_MS = 3_000;

/** Largest frame a client may send: commands are small; anything bigger is refused by ws. */
export const CABLE_MAX_INCOMING_BYTES = 64 * 1024;

/** Subscriptions one connection may hold; more are rejected. */
export const CABLE_MAX_SUBSCRIPTIONS = 100;

/** A connection whose unsent frames pile up past this (a stalled client) is dropped. */
export const CABLE_MAX_BUFFERED_BYTES = 4 * 1024 * 1024;

export type DisconnectReason = 'unauthorized' | 'invalid_request' | 'server_restart' | 'remote';

export type ServerFrame =
  | { type: 'welcome' }
  | { type: 'ping'; message: number }
  | { type: 'confirm_subscription'; identifier: string }
  | { type: 'reject_subscription'; identifier: string }
  | { type: 'disconnect'; reason: DisconnectReason; reconnect: boolean }
  | { identifier: string; message: unknown };

export interface ClientCommand {
  command: 'subscribe' | 'unsubscribe' | 'message';
  identifier: string;
  /** For `message`: the JSON text of the action's data (`{"action":"…",…}`). */
  data?: string;
}

/** The subscription's params: the identifier's JSON object, which names its channel. */
export interface ChannelParams {
  channel: string;
  [key: string]: unknown;
}

/** The client's frame as a command, or null when it is not one (it is then ignored). */
export function parseCommand(text: string): ClientCommand | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof value !== 'object' || value === null) return null;
  const { command, identifier, data } = value as Record<string, unknown>;
  if (command !== 'subscribe' && command !== 'unsubscribe' && command !== 'message') return null;
  if (typeof identifier !== 'string') return null;
  return { command, identifier, ...(typeof data === 'string' ? { data } : {}) };
}

/** The params an identifier carries, or null when it is not a JSON object naming a channel. */
export function parseIdentifier(identifier: string): ChannelParams | null {
  let value: unknown;
  try {
    value = JSON.parse(identifier);
  } catch {
    return null;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
  const params = value as Record<string, unknown>;
  return typeof params.channel === 'string' ? (params as ChannelParams) : null;
}

/** The subprotocol to answer for the client's offer: ours, best first; false when none fits. */
export function chooseProtocol(offered: ReadonlySet<string>): string | false {
  return CABLE_PROTOCOLS.find((protocol) => offered.has(protocol)) ?? false;
}
