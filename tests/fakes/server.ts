import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FakeProvider } from './types';

/** Starts an HTTP server on 127.0.0.1 on a free port with `handler`; the base of every fake. */
export async function listenFake(handler: (request: IncomingMessage, response: ServerResponse) => void | Promise<void>): Promise<FakeProvider> {
  const server = createServer((request, response) => {
    Promise.resolve(handler(request, response)).catch((error: unknown) => {
      if (!response.headersSent) response.writeHead(500, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ message: String(error) }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

/** What the next call to a fake provider meets: a 429 with its Retry-After seconds, another failure status, or nothing. */
export type InjectedFault = { status: 429; retryAfter: number } | { status: number; retryAfter?: undefined } | null;

/**
 * The faults every provider fake can be told to inject, and their control routes:
 * - `rateLimit(count, retryAfterSeconds)` / POST /__fake/rate_limit {count, retry_after}: the next calls answer 429;
 * - `failNext(count, status)` / POST /__fake/fail {count, status}: the next calls answer that status (503 by default);
 * - `delay(ms)` / POST /__fake/delay {ms}: every answer waits that long (to watch a sync's percent).
 * Each fake answers a fault in its provider's own error body.
 */
export class FaultInjector {
  private limited = 0;
  private retryAfter = 1;
  private failures = 0;
  private failureStatus = 503;
  delayMs = 0;

  rateLimit(count: number, retryAfterSeconds = 1): void {
    this.limited = count;
    this.retryAfter = retryAfterSeconds;
  }

  failNext(count: number, status = 503): void {
    this.failures = count;
    this.failureStatus = status;
  }

  delay(ms: number): void {
    this.delayMs = ms;
  }

  /** Handles a control route (`/__fake/rate_limit`, `/__fake/fail`, `/__fake/delay`); false for any other path. */
  control(path: string, body: Record<string, unknown>): boolean {
    if (path === '/__fake/rate_limit') this.rateLimit(Number(body.count ?? 1), Number(body.retry_after ?? 1));
    else if (path === '/__fake/fail') this.failNext(Number(body.count ?? 1), Number(body.status ?? 503));
    else if (path === '/__fake/delay') this.delay(Number(body.ms ?? 0));
    else return false;
    return true;
  }

  /** The fault the call being answered meets (each one injected is used once). */
  next(): InjectedFault {
    if (this.limited > 0) {
      this.limited -= 1;
      return { status: 429, retryAfter: this.retryAfter };
    }
    if (this.failures > 0) {
      this.failures -= 1;
      return { status: this.failureStatus };
    }
    return null;
  }

  /** Waits the injected delay, if any. */
  async wait(): Promise<void> {
    if (this.delayMs > 0) await new Promise((resolve) => setTimeout(resolve, this.delayMs));
  }

  reset(): void {
    this.limited = 0;
    this.failures = 0;
    this.delayMs = 0;
  }
}

/** JSON answers on `response`: a status, a body and any other headers. */
export function jsonSender(response: ServerResponse): (status: number, body: unknown, headers?: Record<string, string>) => void {
  return (status, body, headers = {}) => {
    response.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers }).end(JSON.stringify(body));
  };
}

/**
 * The invoices of an invoicing fake (Fakturownia, wFirma), in id order. Each belongs to the account
 * it was added for (a subdomain, a user's e-mail; compared in lower case), or to every account when
 * it was added for none. An invoice added with an id the store has replaces the one before.
 */
export class OwnedInvoices<T extends { id: string | number }> {
  private invoices: T[] = [];
  private readonly ownerOf = new Map<T['id'], string>();

  constructor(private readonly order: (a: T, b: T) => number) {}

  add(added: T[], owner: string | undefined): T[] {
    this.invoices = [...this.invoices.filter((invoice) => !added.some((a) => a.id === invoice.id)), ...added].sort(this.order);
    for (const invoice of added) {
      if (owner) this.ownerOf.set(invoice.id, owner.toLowerCase());
      else this.ownerOf.delete(invoice.id);
    }
    return added;
  }

  /** The invoices `owner` (lower case) sees, in id order. */
  of(owner: string): T[] {
    return this.invoices.filter((invoice) => (this.ownerOf.get(invoice.id) ?? owner) === owner);
  }

  clear(): void {
    this.invoices = [];
    this.ownerOf.clear();
  }
}

/**
 * The control calls of an invoicing fake: POST /__fake/invoices?{ownerParameter}= (adds an invoice
 * or a list, answers 201 with them), the faults' routes (FaultInjector.control) and
 * /__fake/reset. The status and body to answer, or null for a path that is none of them.
 */
export function invoiceFakeControl(
  url: URL,
  body: Record<string, unknown>,
  fake: { ownerParameter: string; add: (body: never, owner: string | undefined) => unknown; faults: FaultInjector; reset: () => void },
): [status: number, body: unknown] | null {
  if (url.pathname === '/__fake/invoices') return [201, fake.add(body as never, url.searchParams.get(fake.ownerParameter) ?? undefined)];
  if (fake.faults.control(url.pathname, body)) return [200, { ok: true }];
  if (url.pathname === '/__fake/reset') {
    fake.reset();
    return [200, { ok: true }];
  }
  return null;
}
