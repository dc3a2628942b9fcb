/** The live connection (the Action Cable consumer of /cable): what it reports to the notices. */

/** What the consumer's callbacks report. */
export type LiveConnectionEvent =
  /** The connection is open (its first time, or again after a loss). */
  | { type: 'CONNECTED' }
  /** The connection dropped; the consumer keeps trying to reconnect. */
  | { type: 'DISCONNECTED' }
  /** The connection was closed for good (the page left it, or the server refused it). */
  | { type: 'CLOSED' };

export type LiveConnectionEventType = LiveConnectionEvent['type'];
