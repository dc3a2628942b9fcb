import { setup } from 'xstate';
import type { ActorRefFrom, SnapshotFrom } from 'xstate';
import { TOAST_AUTO_CLOSE_MS } from '../../models/constants';
import type { LiveConnectionEvent } from './types';

/**
 * The live connection's notices (second spec document, section 4: a connection-lost notice
 * appears on a live-channel disconnect and becomes 'Connection re-established' on reconnect).
 *
 * - `connecting` (initial): the first connection is being made; no notice. `liveConnection.connected` →
 *   `connected`; `liveConnection.disconnected` (the first attempt failed) → `disconnected`.
 * - `connected`: live; no notice. `liveConnection.disconnected` → `disconnected`.
 * - `disconnected`: the connection-lost notice, which stays. `liveConnection.connected` → `reconnected` and
 *   `resync`: what the channel pushed while the connection was down is lost, so the view
 *   reloads what it shows (the report).
 * - `reconnected`: 'Connection re-established' replaces the notice for its toast duration,
 *   then → `connected`. `liveConnection.disconnected` → `disconnected` at once.
 * - `closed` (final): `liveConnection.closed` in any state; no notice, nothing live.
 *
 * `resync` is an effect provided by src/.
 */
export const liveConnectionMachine = setup({
  types: {
    events: {} as LiveConnectionEvent,
  },
  actions: {
    /** Reloads what the view shows from the server (provided: e.g. reload the report). */
    resync: () => {},
  },
  delays: {
    /** How long 'Connection re-established' shows (the spec's toast duration, models/constants.ts). */
    reestablishedNotice: TOAST_AUTO_CLOSE_MS.connectionReestablished,
  },
}).createMachine({
  id: 'liveConnection',
  initial: 'connecting',
  on: {
    'liveConnection.closed': { target: '.closed' },
  },
  states: {
    connecting: {
      on: {
        'liveConnection.connected': { target: 'connected' },
        'liveConnection.disconnected': { target: 'disconnected' },
      },
    },

    connected: {
      on: {
        'liveConnection.disconnected': { target: 'disconnected' },
      },
    },

    disconnected: {
      on: {
        'liveConnection.connected': { target: 'reconnected', actions: 'resync' },
      },
    },

    reconnected: {
      after: {
        reestablishedNotice: { target: 'connected' },
      },
      on: {
        'liveConnection.disconnected': { target: 'disconnected' },
      },
    },

    closed: {
      type: 'final',
    },
  },
});

export type LiveConnectionMachine = typeof liveConnectionMachine;
export type LiveConnectionSnapshot = SnapshotFrom<LiveConnectionMachine>;
/** A running live connection's notices, as the view holds them. */
export type LiveConnectionActorRef = ActorRefFrom<LiveConnectionMachine>;
