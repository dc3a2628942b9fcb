import type { Revocation } from './revocations';
import type { CableEvent } from './streams';

/** What the hub needs of a connection. */
export interface HubConnection {
  /** The account the connection's token belongs to; null before it is accepted. */
  readonly accountId: string | null;
  /** The user of the connection's token; null before it is accepted. */
  readonly userId: string | null;
  /** The id (`jti`) of the connection's token; null before it is accepted. */
  readonly tokenId: string | null;
  /** Sends a message to one of the connection's subscriptions. */
  transmit(identifier: string, message: unknown): void;
  /** The heartbeat: a ping, and the token's expiry (and now and then its revocation) checked. */
  beat(unixSeconds: number): void;
  /** Checks the token again now (it may have been revoked); a refused token ends the connection. */
  recheck(): void;
}

/** One accepted subscription of a connection, listening to its streams. */
export interface HubSubscription {
  readonly identifier: string;
  readonly streams: readonly string[];
  readonly connection: HubConnection;
}

/**
 * The live connections of this server instance and who listens to which stream. Events come
 * in from the LISTEN of CABLE_NOTIFY_CHANNEL (any instance or worker published them) and go
 * out to the subscriptions of their stream on this instance.
 */
export class CableHub {
  private readonly connections = new Set<HubConnection>();
  private readonly listeners = new Map<string, Set<HubSubscription>>();

  add(connection: HubConnection): void {
    this.connections.add(connection);
  }

  remove(connection: HubConnection): void {
    this.connections.delete(connection);
  }

  attach(subscription: HubSubscription): void {
    for (const stream of subscription.streams) {
      let set = this.listeners.get(stream);
      if (!set) {
        set = new Set();
        this.listeners.set(stream, set);
      }
      set.add(subscription);
    }
  }

  detach(subscription: HubSubscription): void {
    for (const stream of subscription.streams) {
      const set = this.listeners.get(stream);
      if (!set) continue;
      set.delete(subscription);
      if (set.size === 0) this.listeners.delete(stream);
    }
  }

  /** Hands an event to the subscribers of its stream; a stream is never delivered to another account's connection. */
  deliver(event: CableEvent): number {
    const set = this.listeners.get(event.stream);
    if (!set) return 0;
    let delivered = 0;
    for (const subscription of set) {
      if (subscription.connection.accountId !== event.account_id) continue;
      subscription.connection.transmit(subscription.identifier, event.message);
      delivered += 1;
    }
    return delivered;
  }

  beat(unixSeconds: number): void {
    for (const connection of this.connections) connection.beat(unixSeconds);
  }

  /**
   * A token of a user was revoked somewhere (server/cable/revocations.ts): that user's
   * connections (of that token only, when it is named) check their tokens again at once.
   * Answers how many were asked to.
   */
  revoked(revocation: Revocation): number {
    let checked = 0;
    for (const connection of this.connections) {
      if (connection.accountId !== revocation.accountId || connection.userId !== revocation.userId) continue;
      if (revocation.jti !== null && connection.tokenId !== revocation.jti) continue;
      connection.recheck();
      checked += 1;
    }
    return checked;
  }

  connectionCount(): number {
    return this.connections.size;
  }

  streamCount(): number {
    return this.listeners.size;
  }

  all(): HubConnection[] {
    return [...this.connections];
  }
}
