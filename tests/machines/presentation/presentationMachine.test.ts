import { describe, expect, it } from 'vitest';
import { createActor } from 'xstate';
import { PRESENTATION_TITLE_SLIDE_ID } from '../../../models/constants';
import { clampIndex, indexAfterChange, presentationMachine } from '../../../machines/presentation/presentationMachine';
import type { PresentationSnapshot } from '../../../machines/presentation/presentationMachine';
import { currentSlide, index, isFirst, isLast, isPresenting, total } from '../../../machines/presentation/selectors';
import type { PresentationEvent } from '../../../machines/presentation/types';
import { coverageGaps, describePath, generatePaths } from '../support/modelPaths';
import type { AnyTestModel, AnyTestPath } from '../support/modelPaths';
import {
  anyPresentationTestModel,
  changedSlides,
  describePresentationPath,
  MODEL_SLIDES,
  modelEvents,
  pathTestParams,
  presentationModelEntry,
  presentationPaths,
  presentationTestModel,
} from './presentationModel';
import type { PresentationExecutors } from './presentationModel';

type Effect = 'showHotKeys' | 'enterFullscreen' | 'exitFullscreen';

/** The machine with its three effects recorded in order. */
function createHarness() {
  const effects: Effect[] = [];
  const record = (effect: Effect) => () => {
    effects.push(effect);
  };
  const actor = createActor(
    presentationMachine.provide({
      actions: { showHotKeys: record('showHotKeys'), enterFullscreen: record('enterFullscreen'), exitFullscreen: record('exitFullscreen') },
    }),
  ).start();
  return {
    actor,
    effects,
    send: (event: PresentationEvent) => actor.send(event),
    snapshot: (): PresentationSnapshot => actor.getSnapshot(),
  };
}

type Harness = ReturnType<typeof createHarness>;

function machineExecutors(harness: Harness): PresentationExecutors {
  const send = async (event: PresentationEvent) => harness.send(event);
  return {
    'presentation.open': send,
    'presentation.next': send,
    'presentation.previous': send,
    'presentation.go': send,
    'presentation.leave': send,
    'presentation.slidesChanged': send,
  };
}

/** What a step did besides changing the slide: the toast and full screen on the way in, full screen back on the way out. */
function effectsBetween(before: PresentationSnapshot, after: PresentationSnapshot): Effect[] {
  if (before.matches('closed') && after.matches('presenting')) return ['showHotKeys', 'enterFullscreen'];
  if (before.matches('presenting') && after.matches('closed')) return ['exitFullscreen'];
  return [];
}

const paths = presentationPaths();

describe('presentation machine: generated paths', () => {
  it('reaches every state and takes every transition of the chart', () => {
    expect(coverageGaps(presentationMachine, paths)).toEqual({ states: [], transitions: [] });
  });

  it('is the registry entry QA lists, covering the chart on its own', () => {
    expect(presentationModelEntry.name).toBe('presentation');
    expect(presentationModelEntry.machine).toBe(presentationMachine);
    expect(coverageGaps(presentationModelEntry.machine, generatePaths(presentationModelEntry.model()))).toEqual({ states: [], transitions: [] });
  });

  it('notices a transition that no path takes', () => {
    const withoutLeave = presentationTestModel(modelEvents.filter((event) => event.type !== 'presentation.leave'));
    expect(coverageGaps(presentationMachine, generatePaths(withoutLeave as unknown as AnyTestModel)).transitions).toEqual(['presentation.presenting --presentation.leave[0]--> presentation.closed']);
  });

  it('stays a test plan QA can read, each slide list and position named', () => {
    const names = paths.map(describePresentationPath);
    expect(names).toContain('presentation.open → presentation.next → presentation.next → presentation.next → presentation.next ⇒ closed');
    expect(names).toContain('presentation.open → presentation.previous ⇒ presenting 1/4');
    expect(names).toContain('presentation.open → presentation.next → presentation.next → presentation.slidesChanged(churnRemoved) ⇒ presenting 3/3');
    expect(names).toContain('presentation.open → presentation.next → presentation.next → presentation.next → presentation.slidesChanged(churnRemoved) ⇒ presenting 3/3');
    expect(names).toContain('presentation.open → presentation.next → presentation.slidesChanged(allRemoved) ⇒ presenting 1/1');
    expect(generatePaths(anyPresentationTestModel()).map(describePath)).toContain('presentation.open → presentation.leave ⇒ closed');
    expect(paths.length).toBeGreaterThan(15);
    expect(paths.length).toBeLessThan(40);
  });

  it.each(paths.map((path): [string, AnyTestPath] => [describePresentationPath(path), path]))('%s', async (_, path) => {
    const harness = createHarness();
    let previous: PresentationSnapshot | null = null;
    let effectsSeen = 0;
    await path.test(
      pathTestParams(machineExecutors(harness), (expected) => {
        const actual = harness.snapshot();
        expect(actual.value).toEqual(expected.value);
        expect(actual.context).toEqual(expected.context);
        expect(harness.effects.slice(effectsSeen), 'effects').toEqual(previous ? effectsBetween(previous, expected) : []);
        // The slide shown is always one of the slides while presenting.
        if (expected.matches('presenting')) expect(currentSlide(actual)).toBe(expected.context.slides[expected.context.index]);
        else expect(currentSlide(actual)).toBeNull();
        previous = expected;
        effectsSeen = harness.effects.length;
      }),
    );
    harness.actor.stop();
  });
});

describe('presentation machine: the slideshow', () => {
  const open = (harness: Harness, slides: readonly string[] = MODEL_SLIDES) => harness.send({ type: 'presentation.open', slides });
  const next = (harness: Harness, times = 1) => Array.from({ length: times }, () => harness.send({ type: 'presentation.next' }));

  it('opens on the title slide, with the hot keys toast and full screen', () => {
    const harness = createHarness();
    expect(isPresenting(harness.snapshot())).toBe(false);
    expect(total(harness.snapshot())).toBe(0);
    open(harness);
    const snapshot = harness.snapshot();
    expect(isPresenting(snapshot)).toBe(true);
    expect(currentSlide(snapshot)).toBe(PRESENTATION_TITLE_SLIDE_ID);
    expect([index(snapshot), total(snapshot), isFirst(snapshot), isLast(snapshot)]).toEqual([0, 4, true, false]);
    expect(harness.effects).toEqual(['showHotKeys', 'enterFullscreen']);
  });

  it('does not open without slides, and ignores another open while presenting', () => {
    const harness = createHarness();
    open(harness, []);
    expect(isPresenting(harness.snapshot())).toBe(false);
    open(harness);
    next(harness);
    open(harness, ['title']);
    expect(harness.snapshot().context).toEqual({ slides: MODEL_SLIDES, index: 1 });
    expect(harness.effects).toEqual(['showHotKeys', 'enterFullscreen']);
  });

  it('goes on to the last slide, and closes on next there, leaving full screen', () => {
    const harness = createHarness();
    open(harness);
    next(harness, 3);
    expect(currentSlide(harness.snapshot())).toBe('sec_arr');
    expect(isLast(harness.snapshot())).toBe(true);
    next(harness);
    expect(harness.snapshot().value).toBe('closed');
    expect(harness.snapshot().context).toEqual({ slides: [], index: 0 });
    expect(harness.effects).toEqual(['showHotKeys', 'enterFullscreen', 'exitFullscreen']);
  });

  it('closes on next from a title slide left alone', () => {
    const harness = createHarness();
    open(harness, [PRESENTATION_TITLE_SLIDE_ID]);
    expect(isFirst(harness.snapshot()) && isLast(harness.snapshot())).toBe(true);
    next(harness);
    expect(isPresenting(harness.snapshot())).toBe(false);
  });

  it('goes back, but not before the first slide', () => {
    const harness = createHarness();
    open(harness);
    harness.send({ type: 'presentation.previous' });
    expect(index(harness.snapshot())).toBe(0);
    next(harness, 2);
    harness.send({ type: 'presentation.previous' });
    expect(currentSlide(harness.snapshot())).toBe('sec_mrr');
  });

  it('goes to a slide by position, clamped to the slides there are', () => {
    const harness = createHarness();
    open(harness);
    for (const [wanted, shown] of [
      [2, 2],
      [99, 3],
      [-1, 0],
      [1.7, 1],
      [Number.NaN, 0],
    ] as const) {
      harness.send({ type: 'presentation.go', index: wanted });
      expect(index(harness.snapshot()), `go ${wanted}`).toBe(shown);
    }
    expect(clampIndex(5, 0)).toBe(0);
  });

  it('leaves from any slide with Esc, giving full screen back once', () => {
    const harness = createHarness();
    open(harness);
    next(harness, 2);
    harness.send({ type: 'presentation.leave' });
    expect(isPresenting(harness.snapshot())).toBe(false);
    harness.send({ type: 'presentation.leave' });
    expect(harness.effects.filter((effect) => effect === 'exitFullscreen')).toHaveLength(1);
  });

  it('opens again on the title slide after leaving, with the toast again', () => {
    const harness = createHarness();
    open(harness);
    next(harness, 2);
    harness.send({ type: 'presentation.leave' });
    open(harness);
    expect(index(harness.snapshot())).toBe(0);
    expect(harness.effects.filter((effect) => effect === 'showHotKeys')).toHaveLength(2);
  });

  it('ignores the other events while closed', () => {
    const harness = createHarness();
    for (const event of [{ type: 'presentation.next' }, { type: 'presentation.previous' }, { type: 'presentation.go', index: 2 }, { type: 'presentation.slidesChanged', slides: MODEL_SLIDES }] as const) {
      harness.send(event);
      expect(harness.snapshot().value).toBe('closed');
    }
    expect(harness.effects).toEqual([]);
  });
});

describe('presentation machine: the report changing underneath', () => {
  function presentingAt(slideIndex: number) {
    const harness = createHarness();
    harness.send({ type: 'presentation.open', slides: MODEL_SLIDES });
    harness.send({ type: 'presentation.go', index: slideIndex });
    return harness;
  }
  const change = (harness: Harness, slides: readonly string[]) => harness.send({ type: 'presentation.slidesChanged', slides });

  it('removed the slide shown: the slide that took its place is shown', () => {
    const harness = presentingAt(2);
    expect(currentSlide(harness.snapshot())).toBe('sec_churn');
    change(harness, changedSlides.churnRemoved);
    expect(currentSlide(harness.snapshot())).toBe('sec_arr');
    expect([index(harness.snapshot()), total(harness.snapshot())]).toEqual([2, 3]);
    expect(isLast(harness.snapshot())).toBe(true);
  });

  it('removed the last slide while it was shown: the new last slide', () => {
    const harness = presentingAt(3);
    change(harness, [PRESENTATION_TITLE_SLIDE_ID, 'sec_mrr', 'sec_churn']);
    expect(currentSlide(harness.snapshot())).toBe('sec_churn');
    expect(index(harness.snapshot())).toBe(2);
  });

  it('removed an earlier slide: the same slide stays, one position earlier', () => {
    const harness = presentingAt(3);
    change(harness, changedSlides.churnRemoved);
    expect(currentSlide(harness.snapshot())).toBe('sec_arr');
    expect(index(harness.snapshot())).toBe(2);
  });

  it('added a slide before the one shown: the same slide stays, one position later', () => {
    const harness = presentingAt(2);
    change(harness, changedSlides.cashAdded);
    expect(currentSlide(harness.snapshot())).toBe('sec_churn');
    expect([index(harness.snapshot()), total(harness.snapshot())]).toEqual([3, 5]);
  });

  it('removed every section: the title slide is left, and next closes', () => {
    const harness = presentingAt(2);
    change(harness, changedSlides.allRemoved);
    expect(currentSlide(harness.snapshot())).toBe(PRESENTATION_TITLE_SLIDE_ID);
    expect(isFirst(harness.snapshot()) && isLast(harness.snapshot())).toBe(true);
    harness.send({ type: 'presentation.next' });
    expect(isPresenting(harness.snapshot())).toBe(false);
  });

  it('changes no effect: no toast, no full screen request', () => {
    const harness = presentingAt(1);
    change(harness, changedSlides.churnRemoved);
    change(harness, MODEL_SLIDES);
    expect(harness.effects).toEqual(['showHotKeys', 'enterFullscreen']);
  });

  it('keeps the slide by id, else the position clamped (the pure rule)', () => {
    expect(indexAfterChange(['t', 'a', 'b'], 2, ['t', 'b'])).toBe(1);
    expect(indexAfterChange(['t', 'a', 'b'], 1, ['t', 'b'])).toBe(1);
    expect(indexAfterChange(['t', 'a', 'b'], 2, ['t'])).toBe(0);
    expect(indexAfterChange(['t', 'a', 'b'], 2, [])).toBe(0);
    expect(indexAfterChange([], 0, ['t', 'a'])).toBe(0);
  });
});
