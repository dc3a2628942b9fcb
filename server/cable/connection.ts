import type { FastifyBaseLogger } from 'fastify';
import type { Kysely } from 'kysely';
import type { WebSocket } from 'ws';
import { verifyAccessToken, type AuthContext } from '../auth/tokens';
import type { DB } from '../db/schema';
import type { ChannelRegistry } from './channels';
import type { CableHub, HubConnection, HubSubscription } from './hub';
import {
  CABLE_MAX_BUFFERED_BYTES,
  CABLE_MAX_SUBSCRIPTIONS,
  parseCommand,
  parseIdentifier,
  type ClientCommand,
  type DisconnectReason,
  type ServerFrame,
} from './protocol';

/**
 * The token is checked again every this many beats (3 s each): the safety net of revocations,
 * which otherwise end the connection at once (`recheck`, on the revocation's cable event).
 */
const REVALIDATE_EVERY_BEATS = 20;

export interface ConnectionOptions {
  socket: WebSocket;
  token: string;
  db: Kysely<DB>;
  jwtSecret: string;
  now: () => Date;
  channels: ChannelRegistry;
  hub: CableHub;
  log: FastifyBaseLogger;
}

/**
 * One client's cable connection: accepted once its token verifies (welcome), then its
 * commands, one at a time in the order sent. Its token is checked again on every subscribe, when
 * a revocation of its user's tokens is heard (`recheck`) and now and then on the heartbeat, so an
 * expired or revoked token ends the connection (`disconnect` unauthorized, no reconnect) as it
 * would end an HTTP session.
 */
export class CableConnection implements HubConnection {
  private auth: AuthContext | null = null;
  private readonly subscriptions = new Map<string, HubSubscription>();
  private queue: Promise<void> = Promise.resolve();
  private closed = false;
  private beats = 0;

  constructor(private readonly options: ConnectionOptions) {}

  get accountId(): string | null {
    return this.auth?.accountId ?? null;
  }

  get userId(): string | null {
    return this.auth?.userId ?? null;
  }

  get tokenId(): string | null {
    return this.auth?.jti ?? null;
  }

  get subscriptionCount(): number {
    return this.subscriptions.size;
  }

  /** Verifies the token: welcome, or `disconnect` unauthorized and the socket closed. */
  async accept(): Promise<boolean> {
    const auth = await this.verify();
    if (this.closed) return false;
    if (!auth) {
      this.disconnect('unauthorized', false);
      return false;
    }
    this.auth = auth;
    this.options.hub.add(this);
    this.send({ type: 'welcome' });
    return true;
  }

  /** A frame from the client: queued behind the ones before it. */
  receive(text: string): void {
    const command = parseCommand(text);
    if (!command) {
      this.options.log.debug('cable: ignored a frame that is not a command');
      return;
    }
    this.queue = this.queue
      .then(() => this.handle(command))
      .catch((error: unknown) => this.options.log.error({ err: error }, 'cable: a command failed'));
  }

  transmit(identifier: string, message: unknown): void {
    if (this.subscriptions.has(identifier)) this.send({ identifier, message });
  }

  beat(unixSeconds: number): void {
    const auth = this.auth;
    if (!auth || this.closed) return;
    if (this.options.now().getTime() >= auth.expiresAt.getTime()) {
      this.disconnect('unauthorized', false);
      return;
    }
    this.send({ type: 'ping', message: unixSeconds });
    this.beats += 1;
    if (this.beats % REVALIDATE_EVERY_BEATS === 0) this.recheck();
  }

  recheck(): void {
    if (!this.auth || this.closed) return;
    void this.stillAuthorized().catch((error: unknown) => this.options.log.error({ err: error }, 'cable: token check failed'));
  }

  /** Sends `disconnect` and closes the socket (the client reconnects only when told it may). */
  disconnect(reason: DisconnectReason, reconnect: boolean): void {
    this.send({ type: 'disconnect', reason, reconnect });
    this.release();
    this.options.socket.close();
  }

  /** The socket closed (either side): the connection's subscriptions stop listening. */
  release(): void {
    if (this.closed) return;
    this.closed = true;
    for (const subscription of this.subscriptions.values()) this.options.hub.detach(subscription);
    this.subscriptions.clear();
    this.options.hub.remove(this);
  }

  private async handle(command: ClientCommand): Promise<void> {
    if (this.closed || !this.auth) return;
    switch (command.command) {
      case 'subscribe':
        return this.subscribe(command.identifier);
      case 'unsubscribe':
        return this.unsubscribe(command.identifier);
      case 'message':
        // No channel takes actions from clients yet (docs/cable.md says how one would).
        this.options.log.debug('cable: ignored a message command (no channel performs actions)');
        return;
    }
  }

  private async subscribe(identifier: string): Promise<void> {
    // Already subscribed (the client's guarantor re-sends until confirmed): ignored, as Rails does.
    if (this.subscriptions.has(identifier)) return;
    const params = parseIdentifier(identifier);
    const channel = params ? this.options.channels.get(params.channel) : undefined;
    if (!params || !channel || this.subscriptions.size >= CABLE_MAX_SUBSCRIPTIONS) {
      this.send({ type: 'reject_subscription', identifier });
      return;
    }
    if (!(await this.stillAuthorized())) return;
    const auth = this.auth;
    if (!auth) return;
    let grant: Awaited<ReturnType<typeof channel.authorize>> = null;
    try {
      grant = await channel.authorize({ db: this.options.db, auth, params });
    } catch (error) {
      this.options.log.error({ err: error, channel: channel.name }, 'cable: authorizing a subscription failed');
    }
    if (this.closed) return;
    if (!grant) {
      this.send({ type: 'reject_subscription', identifier });
      return;
    }
    // Listening before the confirmation and before the current state is read: no change falls in between.
    const subscription: HubSubscription = { identifier, streams: grant.streams, connection: this };
    this.subscriptions.set(identifier, subscription);
    this.options.hub.attach(subscription);
    this.send({ type: 'confirm_subscription', identifier });
    if (grant.current) {
      const current = await grant.current();
      if (current !== null && current !== undefined) this.transmit(identifier, current);
    }
  }

  private unsubscribe(identifier: string): void {
    const subscription = this.subscriptions.get(identifier);
    if (!subscription) return;
    this.subscriptions.delete(identifier);
    this.options.hub.detach(subscription);
  }

  private verify(): Promise<AuthContext | null> {
    const { db, jwtSecret, token, now } = this.options;
    return verifyAccessToken(db, { secret: jwtSecret, token, now: now() });
  }

  /** The token is still good (not expired, not revoked, its user still there); else the connection ends. */
  private async stillAuthorized(): Promise<boolean> {
    if (this.closed) return false;
    const auth = await this.verify();
    if (this.closed) return false;
    if (auth) return true;
    this.disconnect('unauthorized', false);
    return false;
  }

  private send(frame: ServerFrame): void {
    const { socket } = this.options;
    if (socket.readyState !== socket.OPEN) return;
    if (socket.bufferedAmount > CABLE_MAX_BUFFERED_BYTES) {
      // A client that reads nothing would hold our memory: it reconnects and catches up by its own means.
      this.release();
      socket.terminate();
      return;
    }
    socket.send(JSON.stringify(frame));
  }
}
