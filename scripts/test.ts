import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * `npm test`: type-check, lint and the architecture check (dependency-cruiser) side by side, every vitest project, then
 * Playwright e2e, stopping at the first failing step. Ends with one line of totals ('N passed, N failed').
 * `SKIP_E2E=true` leaves e2e out, `SKIP_STATIC=true` the type-check, lint and architecture check, and `SKIP_VITEST=true`
 * the vitest projects (CI runs them in parts: `.ci/run`); arguments go to vitest (`npm test -- --project server`).
 */
const root = path.resolve(fileURLToPath(new URL('..', import.meta.url)));
// TEST_REPORTS_DIR lets a second run beside this one (CI's PostgreSQL pass) keep its reports apart.
const reports = path.resolve(root, process.env.TEST_REPORTS_DIR ?? '.tmp/test-reports');
rmSync(reports, { recursive: true, force: true });
mkdirSync(reports, { recursive: true });
const env: NodeJS.ProcessEnv = process.env.CI ? { ...process.env, TZ: 'UTC', NO_COLOR: '1' } : { ...process.env, TZ: 'UTC', FORCE_COLOR: '1' };
const bin = (name: string) => path.join(root, 'node_modules/.bin', name);

interface Step {
  name: string;
  command: string;
  args: string[];
  extraEnv?: NodeJS.ProcessEnv;
}

const vitestReport = path.join(reports, 'vitest.json');
const playwrightReport = path.join(reports, 'playwright.json');
const vitestArgs = process.argv.slice(2);

const steps: Step[] = [];
if (process.env.SKIP_STATIC !== 'true') {
  steps.push(
    { name: 'type-check', command: process.execPath, args: ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.json', '--noEmit'] },
    { name: 'lint', command: bin('eslint'), args: ['--max-warnings', '0', '.'] },
    { name: 'architecture', command: bin('depcruise'), args: ['src', 'machines', 'models', 'server', 'tests', 'scripts', 'bench', 'e2e', '--config', '.dependency-cruiser.cjs'] },
  );
}
if (process.env.SKIP_VITEST !== 'true') {
  steps.push({ name: 'vitest', command: bin('vitest'), args: ['run', '--reporter=default', '--reporter=json', `--outputFile.json=${vitestReport}`, ...vitestArgs] });
}
if (process.env.SKIP_E2E !== 'true') {
  steps.push({ name: 'e2e', command: bin('playwright'), args: ['test'], extraEnv: { PW_JSON_REPORT: playwrightReport } });
}

let passed = 0;
let failed = 0;
let skipped = 0;
const started = Date.now();

function countVitest(): void {
  if (!existsSync(vitestReport)) return;
  const report = JSON.parse(readFileSync(vitestReport, 'utf8')) as { numPassedTests: number; numFailedTests: number; numPendingTests: number; numTodoTests: number };
  passed += report.numPassedTests;
  failed += report.numFailedTests;
  skipped += report.numPendingTests + report.numTodoTests;
}

function countPlaywright(): void {
  if (!existsSync(playwrightReport)) return;
  const report = JSON.parse(readFileSync(playwrightReport, 'utf8')) as { stats: { expected: number; unexpected: number; flaky: number; skipped: number } };
  passed += report.stats.expected + report.stats.flaky;
  failed += report.stats.unexpected;
  skipped += report.stats.skipped;
}

const STATIC_STEPS = new Set(['type-check', 'lint', 'architecture']);

/** Runs a step with its output kept, to be printed whole once it ends (steps run side by side). */
function runBuffered(step: Step): Promise<{ status: number | null; output: string; seconds: string }> {
  const stepStarted = Date.now();
  return new Promise((resolve) => {
    const child = spawn(step.command, step.args, { cwd: root, env: { ...env, ...step.extraEnv } });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', (error) => (output += String(error)));
    child.on('close', (status) => resolve({ status, output, seconds: ((Date.now() - stepStarted) / 1000).toFixed(1) }));
  });
}

let exitCode = 0;
// The static checks are single-threaded: they run side by side, each one's output printed whole.
const staticSteps = steps.filter((step) => STATIC_STEPS.has(step.name));
if (staticSteps.length > 0) {
  console.log(`\n▶ ${staticSteps.map((step) => step.name).join(', ')} (side by side)`);
  const results = await Promise.all(staticSteps.map((step) => runBuffered(step)));
  staticSteps.forEach((step, k) => {
    const result = results[k]!;
    if (result.output.trim()) process.stdout.write(result.output.endsWith('\n') ? result.output : `${result.output}\n`);
    if (result.status !== 0) {
      console.error(`✖ ${step.name} failed (exit ${String(result.status)}) after ${result.seconds} s`);
      failed += 1;
      exitCode ||= result.status ?? 1;
    } else {
      console.log(`✔ ${step.name} (${result.seconds} s)`);
    }
  });
}
for (const step of exitCode === 0 ? steps.filter((each) => !STATIC_STEPS.has(each.name)) : []) {
  const stepStarted = Date.now();
  console.log(`\n▶ ${step.name}`);
  const result = spawnSync(step.command, step.args, { cwd: root, stdio: 'inherit', env: { ...env, ...step.extraEnv } });
  const seconds = ((Date.now() - stepStarted) / 1000).toFixed(1);
  if (step.name === 'vitest') countVitest();
  if (step.name === 'e2e') countPlaywright();
  if (result.status !== 0) {
    console.error(`✖ ${step.name} failed (exit ${String(result.status ?? result.signal)}) after ${seconds} s`);
    exitCode = result.status ?? 1;
    break;
  }
  console.log(`✔ ${step.name} (${seconds} s)`);
}

console.log(`\nnpm test finished in ${((Date.now() - started) / 1000).toFixed(0)} s`);
if (skipped > 0) {
  console.error(`✖ ${skipped} test(s) were skipped: a skipped test is a defect`);
  exitCode ||= 1;
}
console.log(`tests: ${passed} passed, ${failed} failed`);
process.exit(exitCode);
