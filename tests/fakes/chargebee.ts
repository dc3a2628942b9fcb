import { listenFake } from './server';
import type { FakeProvider } from './types';

/** A fake Chargebee API (stub: being built; answers 501 to everything). */
export function startFakeChargebee(): Promise<FakeProvider> {
  return listenFake((_request, response) => {
    response.writeHead(501).end();
  });
}
