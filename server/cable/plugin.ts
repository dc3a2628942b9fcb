import fastifyWebsocket from '@fastify/websocket';
import type { FastifyRequest } from 'fastify';
import fastifyPlugin from 'fastify-plugin';
import { API_VERSION } from '../version';
import type { ChannelRegistry } from './channels';
import { CableConnection } from './connection';
import { CableHub } from './hub';
import { listenResiliently } from './listener';
import { CABLE_MAX_INCOMING_BYTES, CABLE_PATH, CABLE_PING_INTERVAL_MS, chooseProtocol } from './protocol';
import { cableChannels } from './registry';
import { revocationOf } from './revocations';
import { CABLE_NOTIFY_CHANNEL, parseCableEvent } from './streams';

declare module 'fastify' {
  interface FastifyInstance {
    /** The live channels of this instance (server/cable/plugin.ts). */
    cable: CableStatus;
  }
}

export interface CableStatus {
  /** Accepted connections on this instance. */
  connectionCount(): number;
  /** Streams some connection of this instance listens to. */
  streamCount(): number;
}

export interface CablePluginOptions {
  /** The clock of token expiry (the auth plugin's; tests inject one). */
  now?: () => Date;
  /** The channels offered; the app's registry by default. */
  channels?: ChannelRegistry;
}

/** How long a closing server waits for clients to answer its close before cutting them. */
const CLOSE_GRACE_MS = 1_000;

/**
 * The token and API version of a cable connection. Browsers cannot set headers on a
 * WebSocket, so the consumer's URL carries them: `/cable?api_version=11&token=<jwt>` (a
 * non-browser client may send `Authorization: Bearer` instead). The route's request log is
 * kept at warn level so the token in the query string is not written to the logs.
 */
function credentialsOf(request: FastifyRequest): { token: string | null; apiVersion: string | null } {
  const query = (request.query ?? {}) as Record<string, unknown>;
  const header = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '')?.[1];
  const token = typeof query.token === 'string' && query.token.length > 0 ? query.token : (header ?? null);
  const apiVersion = typeof query.api_version === 'string' ? query.api_version : null;
  return { token, apiVersion };
}

/**
 * Live channels at `/cable`, in the Action Cable wire protocol (server/cable/protocol.ts) so the
 * browser uses the maintained `@rails/actioncable` consumer. Events reach this instance through
 * PostgreSQL LISTEN/NOTIFY (server/cable/streams.ts), whoever published them; so do token
 * revocations (server/cable/revocations.ts), which end the connections of those tokens. On close, every
 * client is told `disconnect` (server_restart, reconnect) and its socket closed; the heartbeat
 * and the LISTEN end with the app.
 */
/** Open live connections one user may hold on one instance; more are refused (`disconnect` invalid_request). */
export const MAX_CABLE_CONNECTIONS_PER_USER = 20;

export const cablePlugin = fastifyPlugin<CablePluginOptions>(
  async (app, options) => {
    const now = options.now ?? (() => new Date());
    const channels = options.channels ?? cableChannels;
    const hub = new CableHub();
    const connections = new Set<CableConnection>();
    let closing = false;

    await app.register(fastifyWebsocket, {
      options: {
        maxPayload: CABLE_MAX_INCOMING_BYTES,
        handleProtocols: (offered) => chooseProtocol(offered),
      },
      preClose: async () => {
        closing = true;
        const sockets = [...app.websocketServer.clients];
        for (const connection of connections) connection.disconnect('server_restart', true);
        for (const socket of sockets) socket.close();
        const allClosed = Promise.all(sockets.map((socket) => (socket.readyState === socket.CLOSED ? undefined : new Promise((resolve) => socket.once('close', resolve)))));
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([allClosed, new Promise((resolve) => (timer = setTimeout(resolve, CLOSE_GRACE_MS)))]);
        clearTimeout(timer);
        for (const socket of app.websocketServer.clients) socket.terminate();
        await new Promise<void>((resolve) => app.websocketServer.close(() => resolve()));
      },
    });

    const listener = await listenResiliently(
      app.db,
      CABLE_NOTIFY_CHANNEL,
      (payload) => {
        const event = parseCableEvent(payload);
        if (!event) return;
        // A sign-out or password reset anywhere: the connections of those tokens end now.
        const revocation = revocationOf(event);
        if (revocation) hub.revoked(revocation);
        else hub.deliver(event);
      },
      { warn: (message) => app.log.warn(message), error: (message) => app.log.error(message) },
    );

    const heartbeat = setInterval(() => hub.beat(Math.floor(Date.now() / 1000)), CABLE_PING_INTERVAL_MS);
    heartbeat.unref();

    app.decorate('cable', {
      connectionCount: () => hub.connectionCount(),
      streamCount: () => hub.streamCount(),
    } satisfies CableStatus);

    app.get(CABLE_PATH, { websocket: true, logLevel: 'warn' }, (socket, request) => {
      const { token, apiVersion } = credentialsOf(request);
      const connection = new CableConnection({
        socket,
        token: token ?? '',
        db: app.db.kysely,
        jwtSecret: app.config.jwtSecret,
        now,
        channels,
        hub,
        log: request.log,
      });
      connections.add(connection);
      socket.on('close', () => {
        connection.release();
        connections.delete(connection);
      });
      if (closing) {
        connection.disconnect('server_restart', true);
        return;
      }
      if (apiVersion !== String(API_VERSION)) {
        connection.disconnect('invalid_request', false);
        return;
      }
      if (!token) {
        connection.disconnect('unauthorized', false);
        return;
      }
      // Frames that arrive while the token is checked wait for it, in order.
      const accepted = connection
        .accept()
        .then((ok) => {
          if (!ok) return false;
          // One user's open connections on this instance are bounded (a tab holds one).
          let open = 0;
          for (const other of connections) if (other.userId === connection.userId) open += 1;
          if (open <= MAX_CABLE_CONNECTIONS_PER_USER) return true;
          connection.disconnect('invalid_request', false);
          return false;
        })
        .catch((error: unknown) => {
          request.log.error({ err: error }, 'cable: accepting a connection failed');
          connection.disconnect('server_restart', true);
          return false;
        });
      socket.on('message', (data, isBinary) => {
        if (isBinary) return;
        const text = Buffer.isBuffer(data) ? data.toString('utf8') : Array.isArray(data) ? Buffer.concat(data).toString('utf8') : Buffer.from(data).toString('utf8');
        void accepted.then((ok) => {
          if (ok) connection.receive(text);
        });
      });
    });

    app.addHook('onClose', async () => {
      clearInterval(heartbeat);
      await listener.stop();
    });
  },
  { name: 'subscope-cable', fastify: '5.x' },
);
