import { describe, expect, it } from 'vitest';
import { createActor } from 'xstate';
import { answerEvent } from '../../../machines/integrationSync/answers';
import { integrationSyncActors, saveFailure, toSaveFailure } from '../../../machines/integrationSync/integrationSyncActors';
import type { IntegrationSyncInvokeId, IntegrationSyncServices } from '../../../machines/integrationSync/integrationSyncActors';
import { integrationSyncMachine } from '../../../machines/integrationSync/integrationSyncMachine';
import type { IntegrationSyncSnapshot } from '../../../machines/integrationSync/integrationSyncMachine';
import { disconnectFailedMessage, retryFailedMessage, syncCompleteMessage } from '../../../machines/integrationSync/messages';
import {
  selectDialogOpen,
  selectError,
  selectPhase,
  selectRedirecting,
  selectSaveFailure,
  selectSaving,
  selectStatusLabel,
} from '../../../machines/integrationSync/selectors';
import type { IntegrationSyncNotice } from '../../../machines/integrationSync/types';
import type { IntegrationAnswer } from '../../../models/integrations';
import { CONFIGURATION_NEEDED, CONNECTED, SAVE_CONFIGURATION_FAILURE } from '../../../models/integrations';
import { coverageGaps, describePath, generatePaths } from '../support/modelPaths';
import type { AnyTestModel, AnyTestPath } from '../support/modelPaths';
import {
  answers,
  anyIntegrationSyncTestModel,
  integrationSyncModelEntry,
  integrationSyncTestModel,
  isCardEvent,
  MODEL_CONFIGURATION,
  MODEL_NAME,
  MODEL_SYNC_ERROR,
  modelEvents,
  pathTestParams,
  saveFailures,
} from './integrationSyncModel';
import type { IntegrationSyncExecutors, IntegrationSyncModelEvent } from './integrationSyncModel';

interface PendingCall {
  id: IntegrationSyncInvokeId;
  input: unknown;
  signal: AbortSignal;
  settled: boolean;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

const flush = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

/** The machine with calls that stay pending until the test settles them, and its effects recorded. */
function createHarness() {
  const calls: PendingCall[] = [];
  const notices: IntegrationSyncNotice[] = [];
  const redirects: string[] = [];
  function call<T>(id: IntegrationSyncInvokeId, input: unknown, signal: AbortSignal): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      calls.push({ id, input, signal, settled: false, resolve: (value) => resolve(value as T), reject });
    });
  }
  const services: IntegrationSyncServices = {
    saveConfiguration: (name, configuration, signal) => call('saveConfiguration', { name, configuration }, signal),
    retrySync: (name, signal) => call('retrySync', { name }, signal),
    disconnect: (name, signal) => call('disconnect', { name }, signal),
  };
  const machine = integrationSyncMachine.provide({
    actors: integrationSyncActors(services),
    actions: {
      notify: (_, notice) => notices.push(notice),
      redirect: (_, { url }) => redirects.push(url),
    },
  });
  const actor = createActor(machine, { input: { name: MODEL_NAME } }).start();
  async function settle(id: IntegrationSyncInvokeId, outcome: { output: unknown } | { error: unknown }) {
    const pending = calls.findLast((c) => c.id === id && !c.settled);
    if (!pending) throw new Error(`No ${id} call is pending`);
    pending.settled = true;
    if ('output' in outcome) pending.resolve(outcome.output);
    else pending.reject(outcome.error);
    await flush();
  }
  const callsTo = (id: IntegrationSyncInvokeId) => calls.filter((c) => c.id === id);
  return { actor, calls, callsTo, notices, redirects, settle, snapshot: (): IntegrationSyncSnapshot => actor.getSnapshot() };
}
type Harness = ReturnType<typeof createHarness>;

function send(harness: Harness) {
  return async (event: IntegrationSyncModelEvent) => {
    if (!isCardEvent(event)) throw new Error(`${event.type} is not sent by the card`);
    harness.actor.send(event);
    await flush();
  };
}

function settleFrom(harness: Harness, id: IntegrationSyncInvokeId) {
  return (event: IntegrationSyncModelEvent) =>
    harness.settle(id, 'output' in event ? { output: event.output } : { error: 'error' in event ? event.error : undefined });
}

function machineExecutors(harness: Harness): IntegrationSyncExecutors {
  return {
    'integration.answer.notConfigured': send(harness),
    'integration.answer.syncing': send(harness),
    'integration.answer.synced': send(harness),
    'integration.answer.failed': send(harness),
    'integration.initiallySynced': send(harness),
    'integration.syncFailed': send(harness),
    'integration.configure': send(harness),
    'integration.cancel': send(harness),
    'integration.save': send(harness),
    'integration.connect': send(harness),
    'integration.retry': send(harness),
    'integration.disconnect': send(harness),
    'xstate.done.actor.saveConfiguration': settleFrom(harness, 'saveConfiguration'),
    'xstate.error.actor.saveConfiguration': settleFrom(harness, 'saveConfiguration'),
    'xstate.done.actor.retrySync': settleFrom(harness, 'retrySync'),
    'xstate.error.actor.retrySync': settleFrom(harness, 'retrySync'),
    'xstate.done.actor.disconnect': settleFrom(harness, 'disconnect'),
    'xstate.error.actor.disconnect': settleFrom(harness, 'disconnect'),
  } satisfies IntegrationSyncExecutors;
}

const SYNC_COMPLETE: IntegrationSyncNotice = { kind: 'syncComplete', name: MODEL_NAME };

/** The toasts a step (`event`) between two expected states must show. */
function noticesBetween(before: IntegrationSyncSnapshot, after: IntegrationSyncSnapshot, event: IntegrationSyncModelEvent | null): IntegrationSyncNotice[] {
  if (before.context.awaitingFirstSync && !after.context.awaitingFirstSync && after.matches('connected')) return [SYNC_COMPLETE];
  // The sync a save or a retry queued ended before the call answered: the toast comes with the answer.
  const calling = before.matches({ connecting: 'saving' }) || before.matches({ failed: 'retrying' });
  if (calling && before.context.heardWhileCalling?.kind === 'synced' && after.matches('connected')) return [SYNC_COMPLETE];
  // A refused retry (not a sync that failed again while the retry was answering).
  if (before.matches({ failed: 'retrying' }) && event?.type === 'xstate.error.actor.retrySync') return [{ kind: 'failure', message: retryFailedMessage(MODEL_NAME) }];
  if (before.matches('disconnecting') && event?.type === 'xstate.error.actor.disconnect') {
    return [{ kind: 'failure', message: disconnectFailedMessage(MODEL_NAME) }];
  }
  return [];
}

/** The calls a step must make: each on the way into its state, with the card's name (and the dialog's fields). */
function callsBetween(before: IntegrationSyncSnapshot, after: IntegrationSyncSnapshot): { id: IntegrationSyncInvokeId; input: unknown }[] {
  if (after.matches({ connecting: 'saving' }) && !before.matches({ connecting: 'saving' })) {
    return [{ id: 'saveConfiguration', input: { name: MODEL_NAME, configuration: MODEL_CONFIGURATION } }];
  }
  if (after.matches({ failed: 'retrying' }) && !before.matches({ failed: 'retrying' })) return [{ id: 'retrySync', input: { name: MODEL_NAME } }];
  if (after.matches('disconnecting') && !before.matches('disconnecting')) return [{ id: 'disconnect', input: { name: MODEL_NAME } }];
  return [];
}

/** What the card shows in each state (the spec's words). */
function expectedLabel(expected: IntegrationSyncSnapshot): string | null {
  switch (selectPhase(expected)) {
    case 'configurationNeeded':
      return CONFIGURATION_NEEDED;
    case 'connected':
      return CONNECTED;
    case 'syncing':
      return `Sync in progress (${Math.round(expected.context.percent)}%)`;
    case 'failed':
      return 'Sync failed';
    case 'disconnecting':
      return 'Disconnecting';
    default:
      return null;
  }
}

function distinctPaths(model: AnyTestModel): AnyTestPath[] {
  const seen = new Set<string>();
  return [...model.getShortestPaths(), ...model.getSimplePaths()].filter((path) => {
    const key = JSON.stringify(path.steps.map((step) => step.event), (_k, v: unknown) => (v instanceof Error ? v.message : v));
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

function label(event: IntegrationSyncModelEvent): string {
  if (event.type.startsWith('integration.answer.')) {
    const answer = (event as { integration: IntegrationAnswer }).integration;
    return `answer(${event.type.replace('integration.answer.', '')}${answer.connect === 'oauth' ? ', oauth' : ''}${answer.sync_status === 'syncing' ? `, ${answer.initial_progress}%` : ''})`;
  }
  if (event.type.startsWith('xstate.done.actor.')) {
    const output = (event as { output?: IntegrationAnswer }).output;
    return `${event.type.replace('xstate.done.actor.', '')} done${output ? ` (${output.initially_synced ? 'synced' : 'first sync queued'})` : ''}`;
  }
  if (event.type.startsWith('xstate.error.actor.')) {
    const error = (event as { error: unknown }).error;
    const kind = (error as { kind?: string }).kind ?? (error instanceof Error ? error.message : 'error');
    return `${event.type.replace('xstate.error.actor.', '')} failed (${kind})`;
  }
  return event.type.replace('integration.', '');
}

function pathName(path: AnyTestPath): string {
  const events = path.steps.map((step) => step.event as IntegrationSyncModelEvent).filter((event) => !event.type.startsWith('xstate.init'));
  return `${events.map(label).join(' → ') || '(start)'} ⇒ ${JSON.stringify(path.state.value)}`;
}

const paths = generatePaths(anyIntegrationSyncTestModel());
const walked = distinctPaths(anyIntegrationSyncTestModel());

describe('integrationSync machine: generated paths', () => {
  it('reaches every state and takes every transition of the chart', () => {
    expect(coverageGaps(integrationSyncMachine, paths)).toEqual({ states: [], transitions: [] });
    expect(integrationSyncModelEntry.machine).toBe(integrationSyncMachine);
  });

  it('notices a transition that no path takes', () => {
    const withoutRetry = integrationSyncTestModel(modelEvents.filter((event) => event.type !== 'xstate.error.actor.retrySync'));
    expect(coverageGaps(integrationSyncMachine, generatePaths(withoutRetry as unknown as AnyTestModel)).transitions).toEqual([
      'integrationSync.failed.retrying --xstate.error.actor.retrySync[0]--> integrationSync.failed.idle',
    ]);
  });

  it('stays a test plan QA can read (a bounded number of paths)', () => {
    expect(paths.length).toBeGreaterThan(40);
    expect(paths.length).toBeLessThan(420);
    expect(paths.map(describePath)).toContain(
      'integration.answer.notConfigured → integration.configure → integration.save → xstate.done.actor.saveConfiguration ⇒ syncing',
    );
  });

  it.each(walked.map((path): [string, AnyTestPath] => [pathName(path), path]))('%s', async (_, path) => {
    const harness = createHarness();
    let previous: IntegrationSyncSnapshot | null = null;
    let noticesSeen = 0;
    let callsSeen = 0;
    let stepEvent: IntegrationSyncModelEvent | null = null;
    const executors = machineExecutors(harness);
    const recording = Object.fromEntries(
      Object.entries(executors).map(([type, execute]) => [type, (event: IntegrationSyncModelEvent) => ((stepEvent = event), execute(event))]),
    ) as IntegrationSyncExecutors;
    await path.test(
      pathTestParams(recording, (expected) => {
        const actual = harness.snapshot();
        expect(actual.value).toEqual(expected.value);
        expect(actual.context).toEqual(expected.context);
        if (previous) {
          expect(harness.notices.slice(noticesSeen), 'toasts').toEqual(noticesBetween(previous, expected, stepEvent));
          const made = harness.calls.slice(callsSeen).map(({ id, input }) => ({ id, input }));
          expect(made, 'calls').toEqual(callsBetween(previous, expected));
        }
        // The browser goes to the provider once, on the way into redirecting.
        expect(harness.redirects).toEqual(expected.matches({ connecting: 'redirecting' }) ? ['/users/auth/stripe'] : []);
        expect(selectStatusLabel(actual)).toBe(expectedLabel(expected));
        expect(selectDialogOpen(actual)).toBe(expected.matches('configuring') || expected.matches({ connecting: 'saving' }));
        expect(selectSaving(actual)).toBe(expected.matches({ connecting: 'saving' }));
        expect(selectRedirecting(actual)).toBe(expected.matches({ connecting: 'redirecting' }));
        expect(selectSaveFailure(actual)).toEqual(expected.matches('configuring') ? expected.context.saveFailure : null);
        previous = expected;
        noticesSeen = harness.notices.length;
        callsSeen = harness.calls.length;
      }),
    );
    harness.actor.stop();
  });
});

describe('integrationSync machine: details', () => {
  it('names each server answer for what it says', () => {
    expect(answerEvent(answers.notConfigured).type).toBe('integration.answer.notConfigured');
    expect(answerEvent(answers.oauthNotConfigured).type).toBe('integration.answer.notConfigured');
    expect(answerEvent(answers.oauthAuthorized).type).toBe('integration.answer.notConfigured');
    expect(answerEvent(answers.queued).type).toBe('integration.answer.syncing');
    expect(answerEvent(answers.syncing).type).toBe('integration.answer.syncing');
    expect(answerEvent(answers.synced).type).toBe('integration.answer.synced');
    expect(answerEvent({ ...answers.synced, sync_status: 'syncing' }).type).toBe('integration.answer.synced');
    expect(answerEvent(answers.failed).type).toBe('integration.answer.failed');
    expect(answerEvent({ ...answers.failed, configured: false }).type).toBe('integration.answer.notConfigured');
  });

  it('shows the first sync’s percent as it goes, then Connected with one sync-complete toast', async () => {
    const harness = createHarness();
    harness.actor.send(answerEvent(answers.queued));
    expect(selectStatusLabel(harness.snapshot())).toBe('Sync in progress (0%)');
    harness.actor.send(answerEvent({ ...answers.syncing, initial_progress: 37.6 }));
    expect(selectStatusLabel(harness.snapshot())).toBe('Sync in progress (38%)');
    harness.actor.send(answerEvent({ ...answers.syncing, initial_progress: 250 }));
    expect(selectStatusLabel(harness.snapshot())).toBe('Sync in progress (100%)');
    // The answer of the end may come before the channel's event: the toast still shows, once.
    harness.actor.send(answerEvent(answers.synced));
    expect(selectStatusLabel(harness.snapshot())).toBe(CONNECTED);
    expect(harness.notices).toEqual([]);
    harness.actor.send({ type: 'integration.initiallySynced' });
    harness.actor.send({ type: 'integration.initiallySynced' });
    expect(harness.notices).toEqual([SYNC_COMPLETE]);
    expect(syncCompleteMessage('chargebee')).toBe('Chargebee is synced: your reports now include its data');
  });

  it('is Connected with the toast when the first sync ends before the save answers, and Sync failed when it failed', async () => {
    const harness = createHarness();
    harness.actor.send(answerEvent(answers.notConfigured));
    harness.actor.send({ type: 'integration.configure' });
    harness.actor.send({ type: 'integration.save', configuration: MODEL_CONFIGURATION });
    // A small account: the queued sync ends while POST /integrations/chargebee is still answering.
    harness.actor.send(answerEvent(answers.synced));
    harness.actor.send({ type: 'integration.initiallySynced' });
    expect(harness.notices).toEqual([]);
    await harness.settle('saveConfiguration', { output: answers.queued });
    expect(selectStatusLabel(harness.snapshot())).toBe(CONNECTED);
    expect(harness.notices).toEqual([SYNC_COMPLETE]);
    expect(harness.snapshot().context.heardWhileCalling).toBeNull();

    const failing = createHarness();
    failing.actor.send(answerEvent(answers.failed));
    failing.actor.send({ type: 'integration.retry' });
    failing.actor.send({ type: 'integration.syncFailed', error: 'Chargebee answered 503 five times' });
    await failing.settle('retrySync', { output: answers.queued });
    expect(selectStatusLabel(failing.snapshot())).toBe('Sync failed');
    expect(selectError(failing.snapshot())).toBe('Chargebee answered 503 five times');
    expect(failing.notices).toEqual([]);
  });

  it('shows no sync-complete toast for an integration that was synced before the page loaded', () => {
    const harness = createHarness();
    harness.actor.send(answerEvent(answers.synced));
    harness.actor.send({ type: 'integration.initiallySynced' });
    expect(harness.notices).toEqual([]);
  });

  it('keeps why a sync failed, from the event or from the answer', () => {
    const harness = createHarness();
    harness.actor.send(answerEvent(answers.syncing));
    harness.actor.send({ type: 'integration.syncFailed', error: 'Chargebee answered 503 five times' });
    expect(selectError(harness.snapshot())).toBe('Chargebee answered 503 five times');
    harness.actor.send(answerEvent(answers.failed));
    expect(selectError(harness.snapshot())).toBe(MODEL_SYNC_ERROR);
    harness.actor.send(answerEvent({ ...answers.failed, last_error: null }));
    expect(selectError(harness.snapshot())).toBe('The last sync failed');
  });

  it('sends the dialog’s fields and keeps a refusal for the dialog; the next save clears it', async () => {
    const harness = createHarness();
    harness.actor.send(answerEvent(answers.notConfigured));
    harness.actor.send({ type: 'integration.configure' });
    harness.actor.send({ type: 'integration.save', configuration: { chargebee_site: 'acme', chargebee_api_key: 'wrong' } });
    expect(harness.callsTo('saveConfiguration')[0]?.input).toEqual({ name: MODEL_NAME, configuration: { chargebee_site: 'acme', chargebee_api_key: 'wrong' } });
    await harness.settle('saveConfiguration', { error: saveFailures.cannotConnect });
    expect(selectSaveFailure(harness.snapshot())).toEqual(saveFailures.cannotConnect);
    harness.actor.send({ type: 'integration.save', configuration: MODEL_CONFIGURATION });
    expect(harness.snapshot().context.saveFailure).toBeNull();
    await harness.settle('saveConfiguration', { output: answers.queued });
    expect(selectPhase(harness.snapshot())).toBe('syncing');
  });

  it('turns anything a save threw that it did not understand into "We could not save configuration"', () => {
    expect(toSaveFailure(new TypeError('Failed to fetch'))).toEqual(saveFailure('unavailable', {}, [SAVE_CONFIGURATION_FAILURE]));
    expect(toSaveFailure(saveFailures.invalid)).toBe(saveFailures.invalid);
  });

  it('does not open a dialog for an OAuth, closed-beta or disabled integration, nor redirect a dialog one', () => {
    const harness = createHarness();
    harness.actor.send(answerEvent(answers.oauthNotConfigured));
    expect(harness.snapshot().can({ type: 'integration.configure' })).toBe(false);
    harness.actor.send(answerEvent({ ...answers.notConfigured, connect: 'closed_beta', configurable: false }));
    expect(harness.snapshot().can({ type: 'integration.configure' })).toBe(false);
    expect(harness.snapshot().can({ type: 'integration.connect' })).toBe(false);
    harness.actor.send(answerEvent({ ...answers.notConfigured, enabled: false }));
    expect(harness.snapshot().can({ type: 'integration.configure' })).toBe(false);
    harness.actor.send(answerEvent(answers.notConfigured));
    expect(harness.snapshot().can({ type: 'integration.connect' })).toBe(false);
    expect(harness.snapshot().can({ type: 'integration.configure' })).toBe(true);
  });

  it('opens the dialog of an OAuth integration with a dialog once authorized, and redirects again after a disconnect', async () => {
    const harness = createHarness();
    // Before its OAuth connect: the redirect, no dialog.
    harness.actor.send(answerEvent({ ...answers.oauthAuthorized, authorized: false }));
    expect(harness.snapshot().can({ type: 'integration.configure' })).toBe(false);
    expect(harness.snapshot().can({ type: 'integration.connect' })).toBe(true);
    // Authorized: 'Configuration needed', the dialog, no second redirect.
    harness.actor.send(answerEvent(answers.oauthAuthorized));
    expect(selectStatusLabel(harness.snapshot())).toBe(CONFIGURATION_NEEDED);
    expect(harness.snapshot().can({ type: 'integration.connect' })).toBe(false);
    harness.actor.send({ type: 'integration.configure' });
    expect(selectDialogOpen(harness.snapshot())).toBe(true);
    harness.actor.send({ type: 'integration.save', configuration: { public_id_attribute_name: 'customer_id' } });
    await harness.settle('saveConfiguration', { output: { ...answers.oauthAuthorized, configured: true, sync_status: 'queued' } });
    expect(selectPhase(harness.snapshot())).toBe('syncing');
    // 'Change configuration' stays; a disconnect forgets the tokens: the next connect redirects.
    expect(harness.snapshot().can({ type: 'integration.configure' })).toBe(true);
    harness.actor.send({ type: 'integration.disconnect' });
    await harness.settle('disconnect', { output: undefined });
    expect(selectPhase(harness.snapshot())).toBe('configurationNeeded');
    expect(harness.snapshot().can({ type: 'integration.configure' })).toBe(false);
    expect(harness.snapshot().can({ type: 'integration.connect' })).toBe(true);
    expect(harness.redirects).toEqual([]);
  });

  it('gives up a call in flight when the card goes away', () => {
    const harness = createHarness();
    harness.actor.send(answerEvent(answers.failed));
    harness.actor.send({ type: 'integration.retry' });
    harness.actor.stop();
    expect(harness.callsTo('retrySync')[0]?.signal.aborted).toBe(true);
  });
});
