import { listenFake } from './server';
import type { FakeProvider } from './types';

/** A fake Stripe API (stub: being built; answers 501 to everything). */
export function startFakeStripe(): Promise<FakeProvider> {
  return listenFake((_request, response) => {
    response.writeHead(501).end();
  });
}
