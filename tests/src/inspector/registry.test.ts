import { describe, expect, it } from 'vitest';
import { createActor, waitFor } from 'xstate';
import { authActors, authFailure } from '../../../machines/auth/authActors';
import type { AuthServices } from '../../../machines/auth/authActors';
import { authMachine } from '../../../machines/auth/authMachine';
import type { AuthUser } from '../../../models/auth';
import { createInspectorRegistry, inspectorRegistry, MAX_TRACE_ENTRIES, redact, REDACTED } from '../../../src/inspector/registry';
import { csvFile, demoImportMachine, importIdOf } from './demoMachine';

function clock(start = Date.UTC(2024, 4, 1, 10, 0, 0)) {
  let now = start;
  return { now: () => now, tick: (ms: number) => (now += ms) };
}

describe('inspector registry', () => {
  it('records every event of a real machine with the snapshot it led to, timed', () => {
    const time = clock();
    const registry = createInspectorRegistry({ now: time.now });
    const tracker = registry.track('demoImport', { importIdOf });
    const actor = createActor(demoImportMachine, { inspect: tracker.inspect });
    expect(registry.list()).toEqual([]); // created, not started: nothing to show yet

    actor.start();
    time.tick(1_000);
    actor.send({ type: 'upload', file: csvFile() });
    time.tick(250);
    actor.send({ type: 'uploaded', importId: 'imp_42' });
    time.tick(2_000);
    actor.send({ type: 'poll' });

    const [recorded, ...others] = registry.list();
    expect(others).toEqual([]);
    expect(recorded).toMatchObject({ id: 'demoImport#1', name: 'demoImport', live: true, importId: 'imp_42', startedAt: Date.UTC(2024, 4, 1, 10, 0, 0) });
    expect(registry.get(tracker.id)).toBe(recorded);
    const trace = recorded?.trace ?? [];
    expect(trace.map((t) => [t.index, t.event.type, t.value, t.at - Date.UTC(2024, 4, 1, 10, 0, 0)])).toEqual([
      [0, 'xstate.init', 'idle', 0],
      [1, 'upload', 'uploading', 1_000],
      [2, 'uploaded', 'polling', 1_250],
      [3, 'poll', 'polling', 3_250],
    ]);
    // The file is described, not kept; the context is a copy of each moment.
    expect(trace[1]?.event).toEqual({ type: 'upload', file: { file: 'subscriptions.csv', size: 25, type: 'text/csv' } });
    expect(trace[2]?.context).toEqual({ importId: 'imp_42', polls: 0, file: { file: 'subscriptions.csv', size: 25, type: 'text/csv' } });
    expect(trace[3]?.context).toMatchObject({ polls: 1 });
    expect(JSON.parse(JSON.stringify(recorded))).toEqual(recorded);
  });

  it('notifies subscribers and bumps its version with each snapshot', () => {
    const registry = createInspectorRegistry();
    const tracker = registry.track('demoImport');
    let calls = 0;
    const unsubscribe = registry.subscribe(() => (calls += 1));
    const actor = createActor(demoImportMachine, { inspect: tracker.inspect }).start();
    const version = registry.getVersion();
    actor.send({ type: 'upload', file: csvFile() });
    expect(registry.getVersion()).toBeGreaterThan(version);
    expect(calls).toBe(2);
    unsubscribe();
    actor.send({ type: 'uploaded', importId: 'imp_1' });
    expect(calls).toBe(2);
  });

  it('keeps separate registries apart (the page has one, tests make their own)', () => {
    const registry = createInspectorRegistry();
    createActor(demoImportMachine, { inspect: registry.track('demoImport').inspect }).start();
    expect(registry.list()).toHaveLength(1);
    expect(inspectorRegistry.list().some((actor) => registry.list().includes(actor))).toBe(false);
  });

  it('caps a trace, dropping the oldest snapshots and counting them', () => {
    const registry = createInspectorRegistry({ maxTraceEntries: 5 });
    const actor = createActor(demoImportMachine, { inspect: registry.track('demoImport').inspect }).start();
    actor.send({ type: 'upload', file: csvFile() });
    actor.send({ type: 'uploaded', importId: 'imp_1' });
    for (let k = 0; k < 10; k += 1) actor.send({ type: 'poll' });

    const [recorded] = registry.list();
    expect(recorded?.trace).toHaveLength(5);
    expect(recorded?.dropped).toBe(8);
    expect(recorded?.trace.map((t) => t.index)).toEqual([0, 1, 2, 3, 4]);
    expect(recorded?.trace.at(-1)?.context).toMatchObject({ polls: 10 });
    expect(recorded?.trace[0]?.context).toMatchObject({ polls: 6 });
  });

  it(`caps at ${MAX_TRACE_ENTRIES} snapshots by default`, () => {
    const registry = createInspectorRegistry();
    const actor = createActor(demoImportMachine, { inspect: registry.track('demoImport').inspect }).start();
    actor.send({ type: 'upload', file: csvFile() });
    actor.send({ type: 'uploaded', importId: 'imp_1' });
    for (let k = 0; k < MAX_TRACE_ENTRIES + 20; k += 1) actor.send({ type: 'poll' });
    expect(registry.list()[0]?.trace).toHaveLength(MAX_TRACE_ENTRIES);
  });

  it('marks an actor ended when its view is gone, when it stops and when it finishes', () => {
    const registry = createInspectorRegistry();
    const viewTracker = registry.track('viewGone');
    createActor(demoImportMachine, { inspect: viewTracker.inspect }).start();
    const stopped = createActor(demoImportMachine, { inspect: registry.track('stopped').inspect }).start();
    const finished = createActor(demoImportMachine, { inspect: registry.track('finished').inspect }).start();
    expect(registry.list().map((actor) => actor.live)).toEqual([true, true, true]);

    viewTracker.stop();
    stopped.stop();
    finished.send({ type: 'upload', file: csvFile() });
    finished.send({ type: 'uploaded', importId: 'imp_1' });
    finished.send({ type: 'finish' });

    expect(registry.list().map((actor) => [actor.id, actor.live])).toEqual([
      ['viewGone#1', false],
      ['stopped#1', false],
      ['finished#1', false],
    ]);
    expect(registry.get('stopped#1')?.trace.at(-1)).toMatchObject({ event: { type: 'xstate.stop' }, status: 'stopped' });
    expect(registry.get('finished#1')?.trace.at(-1)).toMatchObject({ value: 'finished', status: 'done' });

    registry.clear();
    expect(registry.list()).toEqual([]);
  });

  it('keeps one live entry when an actor is stopped and restarted from its snapshot (React double effects)', () => {
    const registry = createInspectorRegistry();
    const tracker = registry.track('demoImport');
    const actor = createActor(demoImportMachine, { inspect: tracker.inspect }).start();
    actor.send({ type: 'upload', file: csvFile() });
    // What @xstate/react does on an effect cleanup and the effect again.
    const persisted = actor.getSnapshot();
    tracker.stop();
    actor.stop();
    (actor as unknown as { _processingStatus: number; _snapshot: unknown })._processingStatus = 0;
    (actor as unknown as { _snapshot: unknown })._snapshot = persisted;
    tracker.resume();
    actor.start();

    const [recorded] = registry.list();
    expect(recorded?.live).toBe(true);
    expect(recorded?.trace.map((t) => t.event.type)).toEqual(['xstate.init', 'upload']);
  });

  it('loads an exported actor as a replay, not live', () => {
    const registry = createInspectorRegistry();
    const id = registry.load({
      name: 'csvImport',
      startedAt: 1,
      importId: 'imp_9',
      trace: [{ index: 7, at: 2, event: { type: 'xstate.init' }, value: 'idle', context: { password: 'leaked' }, status: 'active' }],
    });
    expect(id).toBe('csvImport#1 (loaded)');
    expect(registry.get(id)).toMatchObject({ live: false, loaded: true, importId: 'imp_9', trace: [{ index: 0, context: { password: REDACTED } }] });
  });
});

describe('redaction', () => {
  const ada: AuthUser = { id: 'usr_ada', name: 'Ada', email: 'ada@example.com', account_id: 'acc_1', permission_level: 'user' };
  const JWT = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ1c3JfYWRhIn0.c2lnbmF0dXJlLXNlY3JldA';

  function authServices(): AuthServices {
    return {
      fetchStoredUser: () => Promise.reject(authFailure('unauthorized')),
      signIn: () => Promise.resolve(ada),
      signUp: () => Promise.resolve(ada),
      resetPassword: () => Promise.resolve(ada),
      acceptInvitation: () => Promise.resolve(ada),
      fetchTokenUser: () => Promise.resolve(ada),
      signOut: () => Promise.resolve(),
    };
  }

  function trackedAuthActor() {
    const registry = createInspectorRegistry();
    const machine = authMachine.provide({
      actors: authActors(authServices()),
      actions: { navigate: () => {}, storeRedirect: () => {}, forgetStoredSession: () => {} },
    });
    const actor = createActor(machine, { input: { redirectAfterSignIn: null }, inspect: registry.track('auth').inspect });
    return { registry, actor };
  }

  it("keeps the password of the auth machine's sign-in event out of the trace", async () => {
    const { registry, actor } = trackedAuthActor();
    actor.start();
    await waitFor(actor, (snapshot) => snapshot.matches('signedOut'));

    actor.send({ type: 'auth.signIn', request: { email: 'ada@example.com', password: 'correct horse battery staple' } });
    await waitFor(actor, (snapshot) => snapshot.matches('signedIn'));

    const [auth] = registry.list();
    const signIn = auth?.trace.find((t) => t.event.type === 'auth.signIn');
    expect(signIn?.event).toEqual({ type: 'auth.signIn', request: { email: 'ada@example.com', password: REDACTED } });
    expect(signIn?.value).toBe('signingIn');
    expect(auth?.trace.at(-1)).toMatchObject({ value: 'signedIn', context: { user: ada } });
    expect(JSON.stringify(registry.list())).not.toContain('correct horse');
  });

  it("keeps the token of a token sign-in, and a JWT in a remembered path, out of the trace", async () => {
    const { registry, actor } = trackedAuthActor();
    actor.start();
    await waitFor(actor, (snapshot) => snapshot.matches('signedOut'));

    actor.send({ type: 'auth.signInRequested', path: `/sign_in_via_token/${JWT}?next=/settings` });
    actor.send({ type: 'auth.tokenSignIn', token: JWT });
    await waitFor(actor, (snapshot) => snapshot.matches('signedIn'));
    actor.send({ type: 'auth.userUpdated', user: { ...ada, api_token: 'sk_live_abc123' } as AuthUser });

    const text = JSON.stringify(registry.list());
    expect(text).not.toContain(JWT);
    expect(text).not.toContain('eyJ');
    expect(text).not.toContain('sk_live_abc123');
    const [auth] = registry.list();
    expect(auth?.trace.find((t) => t.event.type === 'auth.tokenSignIn')?.event).toEqual({ type: 'auth.tokenSignIn', token: REDACTED });
    expect(auth?.trace.find((t) => t.event.type === 'auth.signInRequested')?.event).toEqual({
      type: 'auth.signInRequested',
      path: `/sign_in_via_token/${REDACTED}?next=/settings`,
    });
    expect(auth?.trace.at(-1)?.context).toMatchObject({ user: { email: 'ada@example.com', api_token: REDACTED } });
  });

  it('replaces passwords, tokens, authorization, secrets and JWTs at any depth', () => {
    const value = {
      type: 'auth.submit',
      password: 'p1',
      passwordConfirmation: 'p2',
      new_password: 'p3',
      email: 'ada@example.com',
      request: { headers: { Authorization: 'Bearer abc.def', 'x-trace': 'ok' }, body: [{ deeper: { apiKey: 'k', jwt: 'j', client_secret: 's', refreshToken: 't' } }] },
      note: 'sent Bearer zzz9 and ?token=abc&page=2',
      when: new Date(Date.UTC(2024, 0, 2)),
      failure: new Error('boom'),
      callback: () => {},
    };
    expect(redact(value)).toEqual({
      type: 'auth.submit',
      password: REDACTED,
      passwordConfirmation: REDACTED,
      new_password: REDACTED,
      email: 'ada@example.com',
      request: {
        headers: { Authorization: REDACTED, 'x-trace': 'ok' },
        body: [{ deeper: { apiKey: REDACTED, jwt: REDACTED, client_secret: REDACTED, refreshToken: REDACTED } }],
      },
      note: `sent Bearer ${REDACTED} and ?token=${REDACTED}&page=2`,
      when: '2024-01-02T00:00:00.000Z',
      failure: { error: 'Error', message: 'boom' },
      callback: '[function]',
    });
  });

  it('survives cycles and huge values', () => {
    const cyclic: Record<string, unknown> = { name: 'loop' };
    cyclic.self = cyclic;
    expect(redact(cyclic)).toEqual({ name: 'loop', self: '[circular]' });
    const many = redact(Array.from({ length: 250 }, (_, k) => k)) as unknown[];
    expect(many).toHaveLength(201);
    expect(many.at(-1)).toBe('… 50 more');
  });
});
