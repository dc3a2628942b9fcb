import { describe, expect, it } from 'vitest';
import type { InspectedActor } from '../../../src/inspector/registry';
import { createTraceFile, parseTraceFile, TraceFileError, traceFileName } from '../../../src/inspector/traceFile';

const actor: InspectedActor = {
  id: 'csvImport#1',
  name: 'csvImport',
  startedAt: 1_714_557_600_000,
  live: true,
  importId: 'imp_1',
  trace: [{ index: 0, at: 1_714_557_600_000, event: { type: 'xstate.init' }, value: 'idle', context: { importId: null }, status: 'active' }],
};
const exportedAt = new Date(Date.UTC(2024, 4, 1, 10, 0, 0, 123));

function errorOf(text: string): string {
  try {
    parseTraceFile(text);
  } catch (error) {
    expect(error).toBeInstanceOf(TraceFileError);
    return (error as Error).message;
  }
  throw new Error('parsed');
}

describe('trace files', () => {
  it('round-trips an export', () => {
    const file = createTraceFile([actor], exportedAt);
    expect(file).toEqual({ version: 1, exportedAt: '2024-05-01T10:00:00.123Z', actors: [actor] });
    expect(parseTraceFile(JSON.stringify(file))).toEqual(file);
  });

  it('names the file after the actor, or "all"', () => {
    expect(traceFileName([actor], exportedAt)).toBe('subscope-trace-csvImport-1-2024-05-01T10-00-00Z.json');
    expect(traceFileName([actor, actor], exportedAt)).toBe('subscope-trace-all-2024-05-01T10-00-00Z.json');
  });

  it('refuses what is not a trace, saying why', () => {
    expect(errorOf('{not json')).toBe('The file is not a trace: it is not valid JSON.');
    expect(errorOf('[1, 2]')).toMatch(/no "actors" list/);
    expect(errorOf(JSON.stringify({ version: 2, exportedAt: 'x', actors: [] }))).toBe('The trace file is version 2; the inspector reads version 1.');
    expect(errorOf(JSON.stringify({ version: 1, exportedAt: 'x', actors: [] }))).toBe('The trace file has no actors.');
    expect(errorOf(JSON.stringify({ version: 1, exportedAt: 'x', actors: [{ ...actor, startedAt: 'yesterday' }] }))).toMatch(
      /^The file is not a valid trace: actors\[0\]\.startedAt: expected a number/,
    );
    const badEntry = { ...actor, trace: [{ ...actor.trace[0], event: { name: 'no type' } }] };
    expect(errorOf(JSON.stringify({ version: 1, exportedAt: 'x', actors: [badEntry] }))).toMatch(/actors\[0\]\.trace\[0\]\.event\.type: expected a string/);
  });
});
