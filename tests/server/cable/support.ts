import type { FastifyInstance } from 'fastify';
import { WebSocket } from 'ws';
import type { TestDatabase } from '../helpers/database';

/**
 * A real WebSocket client of `/cable` (the `ws` package: Node 20 has no global WebSocket),
 * offering the subprotocols the @rails/actioncable consumer offers, and keeping every frame
 * the server sent so tests can wait for one.
 */
export interface CableFrame {
  type?: string;
  identifier?: string;
  message?: unknown;
  reason?: string;
  reconnect?: boolean;
}

export const CONSUMER_PROTOCOLS = ['actioncable-v1-json', 'actioncable-unsupported'];

export class CableClient {
  readonly frames: CableFrame[] = [];
  readonly closed: Promise<{ code: number }>;
  private waiters: Array<() => void> = [];

  private constructor(readonly socket: WebSocket) {
    socket.on('message', (data) => {
      this.frames.push(JSON.parse(String(data)) as CableFrame);
      for (const wake of this.waiters.splice(0)) wake();
    });
    this.closed = new Promise((resolve) => socket.once('close', (code) => resolve({ code })));
  }

  /** Connects to `/cable` with the query given (`api_version`, `token`). */
  static async connect(baseUrl: string, query: Record<string, string>, protocols = CONSUMER_PROTOCOLS): Promise<CableClient> {
    const url = new URL('/cable', baseUrl.replace(/^http/, 'ws'));
    for (const [key, value] of Object.entries(query)) url.searchParams.set(key, value);
    const socket = new WebSocket(url, protocols);
    const client = new CableClient(socket);
    await new Promise<void>((resolve, reject) => {
      socket.once('open', () => resolve());
      socket.once('error', reject);
    });
    return client;
  }

  get protocol(): string {
    return this.socket.protocol;
  }

  send(command: object): void {
    this.socket.send(JSON.stringify(command));
  }

  subscribe(identifier: string): void {
    this.send({ command: 'subscribe', identifier });
  }

  unsubscribe(identifier: string): void {
    this.send({ command: 'unsubscribe', identifier });
  }

  /** The frames other than pings. */
  messages(): CableFrame[] {
    return this.frames.filter((frame) => frame.type !== 'ping');
  }

  /** Resolves with the first frame (already received or to come) that matches; fails after `timeoutMs`. */
  async waitFor(match: (frame: CableFrame) => boolean, timeoutMs = 5_000, what = 'a matching frame'): Promise<CableFrame> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.frames.find(match);
      if (found) return found;
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no ${what} in ${timeoutMs} ms; frames: ${JSON.stringify(this.frames)}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  /** Subscribes and waits for the answer: the confirmation or the rejection. */
  async subscribeAndWait(identifier: string): Promise<'confirm_subscription' | 'reject_subscription'> {
    this.subscribe(identifier);
    const answer = await this.waitFor(
      (frame) => frame.identifier === identifier && (frame.type === 'confirm_subscription' || frame.type === 'reject_subscription'),
      5_000,
      `an answer to the subscription ${identifier}`,
    );
    return answer.type as 'confirm_subscription' | 'reject_subscription';
  }

  /** Messages to one subscription. */
  messagesOf(identifier: string): unknown[] {
    return this.frames.filter((frame) => frame.identifier === identifier && frame.type === undefined).map((frame) => frame.message);
  }

  async close(): Promise<void> {
    if (this.socket.readyState === WebSocket.CLOSED) return;
    this.socket.close();
    await this.closed;
  }
}

/** The bare JWT of an `Authorization: Bearer <jwt>` value. */
export const tokenOf = (authorization: string): string => authorization.replace(/^Bearer\s+/i, '');

/** The identifier the consumer sends for SegmentsImportChannel and an import (JSON of its params). */
export const segmentsImportIdentifier = (id: string): string => JSON.stringify({ channel: 'SegmentsImportChannel', id });

let sequence = 0;
/** An import row of the account, as the draft route leaves it (kind and status chosen). */
export async function createImport(db: TestDatabase, accountId: string, options: { kind?: 'segments' | 'subscriptions'; status?: 'preview' | 'in_progress' } = {}): Promise<string> {
  sequence += 1;
  const id = `imp_cable_${sequence}_${Math.random().toString(36).slice(2, 8)}`;
  await db.kysely
    .insertInto('imports')
    .values({ account_id: accountId, id, kind: options.kind ?? 'segments', status: options.status ?? 'preview', file_name: 'plans.csv', total_rows: 3 })
    .execute();
  return id;
}

/** Listens on a free local port; answers the base URL. */
export function listen(app: FastifyInstance): Promise<string> {
  return app.listen({ port: 0, host: '127.0.0.1' });
}
