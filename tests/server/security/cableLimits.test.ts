import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_CABLE_CONNECTIONS_PER_USER } from '../../../server/cable/plugin';
import { createAuthTestApp, signUp, type AuthTestApp, type SignedUp } from '../auth/support';
import { CableClient, listen, tokenOf } from '../cable/support';

/** One user's open live connections are bounded on each instance; other users are unaffected. */
describe('live connections per user', () => {
  let t: AuthTestApp;
  let base: string;
  let heavy: SignedUp;
  let other: SignedUp;
  const clients: CableClient[] = [];

  const open = async (who: SignedUp) => {
    const client = await CableClient.connect(base, { api_version: '11', token: tokenOf(who.authorization) });
    clients.push(client);
    const first = await client.waitFor((frame) => frame.type === 'welcome' || frame.type === 'disconnect', 10_000, 'welcome or disconnect');
    return { client, first };
  };

  beforeAll(async () => {
    t = await createAuthTestApp();
    base = await listen(t.app);
    heavy = await signUp(t.app);
    other = await signUp(t.app);
  });
  afterAll(async () => {
    await Promise.all(clients.map((client) => client.close()));
    await t.close();
  });

  it(`welcomes ${MAX_CABLE_CONNECTIONS_PER_USER} connections of one user, refuses the next, and still welcomes another user`, async () => {
    for (let index = 0; index < MAX_CABLE_CONNECTIONS_PER_USER; index += 1) expect((await open(heavy)).first.type).toBe('welcome');
    const refused = await open(heavy);
    // The token is checked first (welcome), then the count: the connection ends at once, for good.
    expect(await refused.client.waitFor((frame) => frame.type === 'disconnect', 10_000, 'disconnect')).toMatchObject({ reason: 'invalid_request', reconnect: false });
    await refused.client.closed;
    expect((await open(other)).first.type).toBe('welcome');
    // A closed connection frees its place: once the server has let go of it, a new one is served
    // (its commands are answered, which happens only after the count let it through).
    await clients[0]?.close();
    await expect.poll(() => t.app.cable.connectionCount(), { timeout: 10_000 }).toBe(MAX_CABLE_CONNECTIONS_PER_USER);
    const again = await open(heavy);
    expect(again.first.type).toBe('welcome');
    expect(await again.client.subscribeAndWait(JSON.stringify({ channel: 'NoSuchChannel' }))).toBe('reject_subscription');
    expect(again.client.frames.some((frame) => frame.type === 'disconnect')).toBe(false);
  });
});
