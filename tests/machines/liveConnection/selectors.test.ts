import { describe, expect, it } from 'vitest';
import { liveConnectionMachine } from '../../../machines/liveConnection/liveConnectionMachine';
import { isLive, showsConnectionLost, showsReestablished } from '../../../machines/liveConnection/selectors';

const at = (value: string) => liveConnectionMachine.resolveState({ value, context: undefined });

describe('liveConnection selectors', () => {
  it.each([
    ['connecting', false, false, false],
    ['connected', false, false, true],
    ['disconnected', true, false, false],
    ['reconnected', false, true, true],
    ['closed', false, false, false],
  ] as const)('%s: connection lost %s, re-established %s, live %s', (state, lost, reestablished, live) => {
    expect(showsConnectionLost(at(state))).toBe(lost);
    expect(showsReestablished(at(state))).toBe(reestablished);
    expect(isLive(at(state))).toBe(live);
  });
});
