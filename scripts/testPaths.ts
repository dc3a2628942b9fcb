import { writeFileSync } from 'node:fs';
import { machineModels } from '../tests/machines/registry';
import { describePath, generatePaths } from '../tests/machines/support/modelPaths';

/**
 * `npm run test:paths` prints every machine's generated test paths, one readable line a path
 * (events taken ⇒ state reached); `-- --json FILE` also writes them as JSON; `-- NAME` limits
 * the output to one machine. A machine built from a config (the mapping wizard) is listed once
 * per configuration, by the config's id (`paymentsImport`, `segmentsImport`).
 */
const args = process.argv.slice(2);
const jsonIndex = args.indexOf('--json');
const jsonFile = jsonIndex >= 0 ? args[jsonIndex + 1] : undefined;
const only = args.filter((arg) => !arg.startsWith('--') && arg !== jsonFile);

const report = machineModels
  .filter((entry) => only.length === 0 || only.includes(entry.name))
  .map((entry) => ({
    machine: entry.name,
    paths: generatePaths(entry.model()).map((path) => ({
      name: describePath(path),
      events: path.steps.map((step) => step.event.type).filter((type) => !type.startsWith('xstate.init')),
      state: path.state.value,
    })),
  }));

if (report.length === 0) {
  console.log(only.length ? `No machine named ${only.join(', ')}` : 'No machines registered yet (tests/machines/registry.ts).');
}
for (const { machine, paths } of report) {
  console.log(`\n${machine}: ${paths.length} paths`);
  paths.forEach((path, i) => console.log(`  ${String(i + 1).padStart(3)}. ${path.name}`));
}
if (jsonFile) {
  writeFileSync(jsonFile, JSON.stringify(report, null, 2) + '\n');
  console.log(`\nWrote ${jsonFile}`);
}
