import type { FastifyInstance } from 'fastify';

/** How often, while the server closes, connections that have gone idle are closed. */
export const IDLE_SWEEP_MS = 250;

/**
 * Keep-alive connections on shutdown. Fastify (`forceCloseConnections: 'idle'`) closes the
 * connections that are idle when the shutdown begins, once. A connection whose request was in
 * flight then stays open after its answer, until the client drops it: a `fetch` client keeps it
 * for the server's keep-alive time (72 s), and the shutdown waited for it past its grace period
 * (seen as a process killed with exit 1 instead of 'Stopped cleanly.'). So while the server
 * closes, every answer says `Connection: close` (the client does not reuse the connection, and
 * Node closes it once the answer is sent), and connections that went idle are closed every
 * IDLE_SWEEP_MS (one whose answer was on its way as the shutdown began).
 */
export function registerConnectionDraining(app: FastifyInstance): void {
  let closing = false;
  let sweep: NodeJS.Timeout | undefined;
  app.addHook('preClose', async () => {
    closing = true;
    sweep = setInterval(() => app.server.closeIdleConnections(), IDLE_SWEEP_MS);
    sweep.unref();
  });
  app.addHook('onSend', async (_request, reply, payload) => {
    if (closing) void reply.header('connection', 'close');
    return payload;
  });
  app.addHook('onClose', async () => {
    clearInterval(sweep);
  });
}
