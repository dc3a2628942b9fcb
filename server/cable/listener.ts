import { randomBytes } from 'node:crypto';
import type { Database } from '../db/database';

/** How often the LISTEN is proven alive by a notification of our own. */
export const LISTEN_CHECK_INTERVAL_MS = 30_000;

export interface CableListener {
  stop(): Promise<void>;
}

/**
 * LISTENs to `channel` and hands each payload to `onPayload`, and keeps it that way: every
 * LISTEN_CHECK_INTERVAL_MS it NOTIFYs a heartbeat of its own, and when the previous heartbeat
 * never came back (PostgreSQL restarted, the listening connection was cut) it LISTENs again.
 * Heartbeats are not handed on (other instances see ours and drop them too).
 */
export async function listenResiliently(
  db: Database,
  channel: string,
  onPayload: (payload: string) => void,
  log: { warn(message: string): void; error(message: string): void },
  intervalMs = LISTEN_CHECK_INTERVAL_MS,
): Promise<CableListener> {
  const instance = randomBytes(8).toString('hex');
  const heartbeatPrefix = '{"heartbeat":';
  let sent = 0;
  let seen = 0;
  const receive = (payload: string) => {
    if (payload.startsWith(heartbeatPrefix)) {
      try {
        const { heartbeat, n } = JSON.parse(payload) as { heartbeat?: string; n?: number };
        if (heartbeat === instance && typeof n === 'number') seen = Math.max(seen, n);
      } catch {
        // Not ours.
      }
      return;
    }
    onPayload(payload);
  };

  let unlisten = await db.listen(channel, receive);
  let stopped = false;
  let checking: Promise<void> = Promise.resolve();

  const check = async () => {
    if (sent > seen) {
      log.warn(`cable: LISTEN ${channel} stopped hearing its own heartbeat; listening again`);
      await unlisten().catch(() => {});
      if (stopped) return;
      unlisten = await db.listen(channel, receive);
      seen = sent;
    }
    if (stopped) return;
    sent += 1;
    await db.notify(channel, JSON.stringify({ heartbeat: instance, n: sent }));
  };

  const timer = setInterval(() => {
    checking = checking.then(check).catch((error: unknown) => log.error(`cable: LISTEN check failed: ${error instanceof Error ? error.message : String(error)}`));
  }, intervalMs);
  timer.unref();

  return {
    async stop() {
      if (stopped) return;
      stopped = true;
      clearInterval(timer);
      await checking;
      await unlisten();
    },
  };
}
