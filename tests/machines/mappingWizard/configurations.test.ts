import { describe, expect, it } from 'vitest';
import { paymentsImport, paymentsImportMachine } from '../../../machines/mappingWizard/paymentsImport';
import { segmentsImport, segmentsImportMachine } from '../../../machines/mappingWizard/segmentsImport';
import { machineModels } from '../registry';
import { chartTransitions, coverageGaps, generatePaths } from '../support/modelPaths';

/**
 * The mapping wizard is one chart built per configuration; each configuration's chart is its own
 * entry of the registry (QA's path list and the coverage guard), so both are proven covered.
 */
const configurations = [
  { config: paymentsImport, machine: paymentsImportMachine },
  { config: segmentsImport, machine: segmentsImportMachine },
];

describe.each(configurations.map((entry) => [entry.config.id, entry] as const))('mapping wizard configured as %s', (id, { config, machine }) => {
  it('is built from its config and registered under its id', () => {
    expect(machine.id).toBe(id);
    const entry = machineModels.find((candidate) => candidate.name === id);
    expect(entry?.machine).toBe(machine);
  });

  it('has generated paths reaching every state and every transition of its chart', () => {
    const entry = machineModels.find((candidate) => candidate.name === id);
    if (!entry) throw new Error(`${id} is not in the registry`);
    expect(coverageGaps(machine, generatePaths(entry.model()))).toEqual({ states: [], transitions: [] });
  });

  it(config.live ? 'listens to its live channel while finalizing' : 'has no live channel: only polls', () => {
    const liveTransitions = chartTransitions(machine).filter((transition) => transition.eventType.startsWith('liveChannel.'));
    expect(liveTransitions.length > 0).toBe(config.live);
  });
});
