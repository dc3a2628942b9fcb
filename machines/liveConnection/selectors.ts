import type { LiveConnectionSnapshot } from './liveConnectionMachine';

/** What the view reads of the live connection: its two notices, and whether pushed updates arrive. */

/** The connection-lost notice (it stays until the connection is back or closed). */
export function showsConnectionLost(snapshot: LiveConnectionSnapshot): boolean {
  return snapshot.matches('disconnected');
}

/** 'Connection re-established', in place of the connection-lost notice, for its toast duration. */
export function showsReestablished(snapshot: LiveConnectionSnapshot): boolean {
  return snapshot.matches('reconnected');
}

/** The connection is open: pushed updates arrive. */
export function isLive(snapshot: LiveConnectionSnapshot): boolean {
  return snapshot.matches('connected') || snapshot.matches('reconnected');
}
