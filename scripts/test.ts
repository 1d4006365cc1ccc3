// `npm test`: everything CI checks, in order, with a progress line per step and one closing line
// `tests: N passed, N failed` that counts every vitest test (unit, integration, end-to-end).
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(__dirname, '..');
const bin = (name: string) => path.join(root, 'node_modules', '.bin', name);

interface Step {
  name: string;
  command: string;
  args: string[];
  /** vitest JSON report to count tests from */
  report?: string;
}

const reportPath = (name: string) => path.join(root, 'node_modules', '.cache', `vitest-${name}.json`);

// Colour codes only for a terminal: in a log file or a CI pipe they are noise.
const colour = Boolean(process.stdout.isTTY) || 'FORCE_COLOR' in process.env;
const childEnv: NodeJS.ProcessEnv = colour ? process.env : { ...process.env, NO_COLOR: '1' };

const only = process.argv.slice(2);
const steps: Step[] = [
  {
    name: 'typecheck',
    command: bin('tsc'),
    args: ['-p', 'tsconfig.json', '--noEmit', '--pretty', String(colour)],
  },
  { name: 'lint', command: bin('biome'), args: ['check', '.', ...(colour ? [] : ['--colors=off'])] },
  {
    // The OpenAPI document the gateway serves, under Redocly's recommended rules: no error, no warning.
    name: 'openapi',
    command: process.execPath,
    args: ['--import', 'tsx', path.join(root, 'scripts', 'lint-openapi.ts')],
  },
  {
    name: 'architecture',
    command: bin('depcruise'),
    args: ['--config', '.dependency-cruiser.cjs', 'libs', 'services', 'test-e2e'],
  },
  {
    name: 'unit+integration',
    command: bin('vitest'),
    args: [
      'run',
      '--project',
      'unit',
      '--project',
      'integration',
      '--reporter=default',
      '--reporter=json',
      `--outputFile.json=${reportPath('main')}`,
    ],
    report: reportPath('main'),
  },
  {
    name: 'e2e',
    command: bin('vitest'),
    args: [
      'run',
      '--project',
      'e2e',
      '--reporter=default',
      '--reporter=json',
      `--outputFile.json=${reportPath('e2e')}`,
    ],
    report: reportPath('e2e'),
  },
  {
    // The pay page in a real browser (Chromium, installed with apt-get when missing and run as root).
    name: 'browser',
    command: bin('vitest'),
    args: [
      'run',
      '--project',
      'browser',
      '--reporter=default',
      '--reporter=json',
      `--outputFile.json=${reportPath('browser')}`,
    ],
    report: reportPath('browser'),
  },
].filter((step) => only.length === 0 || only.includes(step.name));

let passed = 0;
let failed = 0;
let skipped = 0;
const failedSteps: string[] = [];
const started = Date.now();

steps.forEach((step, index) => {
  const t0 = Date.now();
  process.stdout.write(`\n[test ${index + 1}/${steps.length}] ${step.name} ...\n`);
  if (step.report && existsSync(step.report)) rmSync(step.report);
  const result = spawnSync(step.command, step.args, { cwd: root, stdio: 'inherit', env: childEnv });
  const seconds = ((Date.now() - t0) / 1000).toFixed(1);
  if (step.report) {
    if (existsSync(step.report)) {
      const report = JSON.parse(readFileSync(step.report, 'utf8')) as {
        numPassedTests: number;
        numFailedTests: number;
        numPendingTests: number;
        numTodoTests: number;
      };
      passed += report.numPassedTests;
      failed += report.numFailedTests;
      skipped += report.numPendingTests + report.numTodoTests;
    } else if (result.status !== 0) {
      failed += 1; // the runner died before it could report: count the step as one failure
    }
  }
  const ok = result.status === 0;
  if (!ok) failedSteps.push(step.name);
  process.stdout.write(
    `[test ${index + 1}/${steps.length}] ${step.name} ${ok ? 'passed' : 'FAILED'} in ${seconds}s\n`,
  );
});

const total = ((Date.now() - started) / 1000).toFixed(1);
process.stdout.write(
  `\n${failedSteps.length ? `failed steps: ${failedSteps.join(', ')}` : 'all steps passed'} (${total}s)\n`,
);
process.stdout.write(`tests: ${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}\n`);
process.exit(failedSteps.length > 0 || failed > 0 ? 1 : 0);
