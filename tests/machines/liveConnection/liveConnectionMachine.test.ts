import { describe, expect, it } from 'vitest';
import { createActor, SimulatedClock } from 'xstate';
import { liveConnectionMachine } from '../../../machines/liveConnection/liveConnectionMachine';
import type { LiveConnectionSnapshot } from '../../../machines/liveConnection/liveConnectionMachine';
import { TOAST_AUTO_CLOSE_MS } from '../../../models/constants';
import { coverageGaps, describePath, generatePaths } from '../support/modelPaths';
import type { AnyTestModel, AnyTestPath } from '../support/modelPaths';
import {
  anyLiveConnectionTestModel,
  isConsumerEvent,
  liveConnectionModelEntry,
  liveConnectionTestModel,
  modelEvents,
  NOTICE_OVER_EVENT,
  pathTestParams,
} from './liveConnectionModel';
import type { LiveConnectionExecutors, LiveConnectionModelEvent } from './liveConnectionModel';

const NOTICE_MS = TOAST_AUTO_CLOSE_MS.connectionReestablished;

/** The machine on a SimulatedClock, with the provided resync counted. */
function createHarness() {
  const clock = new SimulatedClock();
  let resyncs = 0;
  const actor = createActor(liveConnectionMachine.provide({ actions: { resync: () => (resyncs += 1) } }), { clock }).start();
  return { actor, clock, resyncs: () => resyncs, snapshot: (): LiveConnectionSnapshot => actor.getSnapshot() };
}

type Harness = ReturnType<typeof createHarness>;

function send(harness: Harness) {
  return async (event: LiveConnectionModelEvent) => {
    if (!isConsumerEvent(event)) throw new Error(`${event.type} is not reported by the consumer`);
    harness.actor.send(event);
  };
}

/** 'Connection re-established' shows for its whole duration, not a millisecond less, then goes. */
async function noticeOver(harness: Harness) {
  harness.clock.increment(NOTICE_MS - 1);
  expect(harness.snapshot().value, `still shown ${NOTICE_MS - 1} ms in`).toBe('reconnected');
  harness.clock.increment(1);
}

/** How each model event is made to happen against the machine. */
function machineExecutors(harness: Harness): LiveConnectionExecutors {
  return {
    'liveConnection.connected': send(harness),
    'liveConnection.disconnected': send(harness),
    'liveConnection.closed': send(harness),
    [NOTICE_OVER_EVENT]: () => noticeOver(harness),
  } satisfies LiveConnectionExecutors;
}

const paths = generatePaths(anyLiveConnectionTestModel());

describe('liveConnection machine: generated paths', () => {
  it('reaches every state and takes every transition of the chart', () => {
    expect(coverageGaps(liveConnectionMachine, paths)).toEqual({ states: [], transitions: [] });
  });

  it('is the registry entry QA lists', () => {
    expect(liveConnectionModelEntry.name).toBe('liveConnection');
    expect(liveConnectionModelEntry.machine).toBe(liveConnectionMachine);
    expect(coverageGaps(liveConnectionModelEntry.machine, generatePaths(liveConnectionModelEntry.model()))).toEqual({ states: [], transitions: [] });
  });

  it('notices a transition that no path takes', () => {
    const withoutNoticeOver = liveConnectionTestModel(modelEvents.filter((event) => event.type !== NOTICE_OVER_EVENT));
    expect(coverageGaps(liveConnectionMachine, generatePaths(withoutNoticeOver as unknown as AnyTestModel)).transitions).toEqual([
      `liveConnection.reconnected --${NOTICE_OVER_EVENT}[0]--> liveConnection.connected`,
    ]);
  });

  it('stays a test plan QA can read', () => {
    expect(paths.map(describePath)).toContain(`liveConnection.disconnected → liveConnection.connected → ${NOTICE_OVER_EVENT} → liveConnection.closed ⇒ closed`);
    expect(paths.length).toBeLessThan(20);
  });

  it.each(paths.map((path): [string, AnyTestPath] => [describePath(path), path]))('%s', async (_, path) => {
    const harness = createHarness();
    let previous: LiveConnectionSnapshot | null = null;
    let resyncsSeen = 0;
    await path.test(
      pathTestParams(machineExecutors(harness), (expected) => {
        const actual = harness.snapshot();
        expect(actual.value).toEqual(expected.value);
        expect(actual.status).toBe(expected.status);
        // A resync exactly when the connection comes back after a loss.
        const resynced = previous?.matches('disconnected') === true && expected.matches('reconnected');
        expect(harness.resyncs() - resyncsSeen, 'resyncs').toBe(resynced ? 1 : 0);
        previous = expected;
        resyncsSeen = harness.resyncs();
      }),
    );
    harness.actor.stop();
  });

  it('fails a path whose executor does not reach the expected state', async () => {
    const path = paths.find((p) => p.steps.some((step) => step.state.matches('reconnected')));
    if (!path) throw new Error('no path through reconnected');
    const harness = createHarness();
    const executors = machineExecutors(harness);
    // A consumer that reports every reconnection as yet another loss.
    executors['liveConnection.connected'] = async () => {
      harness.actor.send({ type: 'liveConnection.disconnected' });
    };
    await expect(path.test(pathTestParams(executors, (expected) => expect(harness.snapshot().value).toEqual(expected.value)))).rejects.toThrow();
  });
});

describe('liveConnection machine: notices', () => {
  it('connects without a notice or a resync the first time', () => {
    const harness = createHarness();
    expect(harness.snapshot().value).toBe('connecting');
    harness.actor.send({ type: 'liveConnection.connected' });
    expect(harness.snapshot().value).toBe('connected');
    expect(harness.resyncs()).toBe(0);
  });

  it('keeps the connection-lost notice however long the connection is down', () => {
    const harness = createHarness();
    harness.actor.send({ type: 'liveConnection.connected' });
    harness.actor.send({ type: 'liveConnection.disconnected' });
    harness.clock.increment(60 * 60 * 1_000);
    harness.actor.send({ type: 'liveConnection.disconnected' });
    expect(harness.snapshot().value).toBe('disconnected');
  });

  it(`shows 'Connection re-established' for ${NOTICE_MS} ms after a reconnect, and resyncs once`, () => {
    const harness = createHarness();
    harness.actor.send({ type: 'liveConnection.connected' });
    harness.actor.send({ type: 'liveConnection.disconnected' });
    harness.actor.send({ type: 'liveConnection.connected' });
    expect(harness.snapshot().value).toBe('reconnected');
    expect(harness.resyncs()).toBe(1);

    harness.actor.send({ type: 'liveConnection.connected' });
    harness.clock.increment(NOTICE_MS - 1);
    expect(harness.snapshot().value).toBe('reconnected');
    harness.clock.increment(1);
    expect(harness.snapshot().value).toBe('connected');
    expect(harness.resyncs()).toBe(1);
  });

  it('shows the connection-lost notice again at once when lost during the re-established notice, whose timer is then dropped', () => {
    const harness = createHarness();
    harness.actor.send({ type: 'liveConnection.disconnected' });
    harness.actor.send({ type: 'liveConnection.connected' });
    harness.clock.increment(NOTICE_MS / 2);
    harness.actor.send({ type: 'liveConnection.disconnected' });
    harness.clock.increment(NOTICE_MS);
    expect(harness.snapshot().value).toBe('disconnected');

    harness.actor.send({ type: 'liveConnection.connected' });
    expect(harness.resyncs()).toBe(2);
  });

  it('ends with the connection closed, in any state', () => {
    for (const before of [[], ['liveConnection.connected'], ['liveConnection.disconnected'], ['liveConnection.disconnected', 'liveConnection.connected']] as const) {
      const harness = createHarness();
      before.forEach((type) => harness.actor.send({ type }));
      harness.actor.send({ type: 'liveConnection.closed' });
      expect(harness.snapshot().value).toBe('closed');
      expect(harness.snapshot().status).toBe('done');
    }
  });
});
