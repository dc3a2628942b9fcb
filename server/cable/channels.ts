import type { Kysely } from 'kysely';
import type { AuthContext } from '../auth/tokens';
import type { DB } from '../db/schema';
import type { ChannelParams } from './protocol';

/**
 * A live channel: decides whether a connection may subscribe with the given params and, if
 * so, which streams the subscription hears. Streams are fed by `publish` (streams.ts) from
 * anywhere, through PostgreSQL NOTIFY. Adding a channel is one object here plus its entry in
 * the registry the plugin is given (server/cable/registry.ts); see docs/cable.md.
 */
export interface CableChannel {
  /** The `channel` of the subscription's params, as the client names it ('SegmentsImportChannel'). */
  readonly name: string;
  /**
   * The streams of an accepted subscription, or null to reject it (unknown or other tenant's
   * ids, missing rights). Runs for every subscribe, so it may read the database.
   */
  authorize(request: ChannelRequest): Promise<ChannelGrant | null>;
}

export interface ChannelRequest {
  db: Kysely<DB>;
  auth: AuthContext;
  params: ChannelParams;
}

export interface ChannelGrant {
  streams: readonly string[];
  /**
   * What to send the subscriber right after the confirmation (the current state, so a client
   * that subscribes late misses nothing); null or undefined sends nothing. Called once the
   * subscription listens to its streams, so no change falls between the two.
   */
  current?: () => Promise<unknown>;
}

export interface ChannelRegistry {
  get(name: string): CableChannel | undefined;
  names(): string[];
}

export function channelRegistry(channels: readonly CableChannel[]): ChannelRegistry {
  const byName = new Map<string, CableChannel>();
  for (const channel of channels) {
    if (byName.has(channel.name)) throw new Error(`channel ${channel.name} is registered twice`);
    byName.set(channel.name, channel);
  }
  return {
    get: (name) => byName.get(name),
    names: () => [...byName.keys()],
  };
}

/** A string id param (the ids of our rows: short, non-empty), or null. */
export function idParam(params: ChannelParams, key: string): string | null {
  const value = params[key];
  return typeof value === 'string' && value.length > 0 && value.length <= 64 ? value : null;
}
