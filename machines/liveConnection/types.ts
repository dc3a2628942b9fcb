/** The live connection (the Action Cable consumer of /cable): what it reports to the notices. */

/** What the consumer's callbacks report. */
export type LiveConnectionEvent =
  /** The connection is open (its first time, or again after a loss). */
  | { type: 'liveConnection.connected' }
  /** The connection dropped; the consumer keeps trying to reconnect. */
  | { type: 'liveConnection.disconnected' }
  /** The connection was closed for good (the page left it, or the server refused it). */
  | { type: 'liveConnection.closed' };

export type LiveConnectionEventType = LiveConnectionEvent['type'];
