// `npm test`: everything CI checks, in order, with a progress line per step and one closing line
// `tests: N passed, N failed` that counts every vitest test (unit, integration, end-to-end).
import { spawn } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(__dirname, '..');
const bin = (name: string) => path.join(root, 'node_modules', '.bin', name);

interface Step {
  name: string;
  command: string;
  args: string[];
  /** vitest JSON report to count tests from */
  report?: string;
  /**
   * Run beside the named step, its output kept in a file and printed when it ends: for files that mostly
   * wait (a fixed-rate load, restarts one at a time) beside a step that leaves a core idle.
   */
  beside?: string;
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
    // The long end-to-end files that mostly wait (the soak's fixed-rate load, the rolling restart one process
    // at a time): beside the browser step, which leaves a core idle, instead of after everything else.
    name: 'e2e-long',
    command: bin('vitest'),
    args: [
      'run',
      '--project',
      'e2e-long',
      '--reporter=default',
      '--reporter=json',
      `--outputFile.json=${reportPath('e2e-long')}`,
    ],
    report: reportPath('e2e-long'),
    beside: 'browser',
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

interface Outcome {
  ok: boolean;
  seconds: string;
}

/** Runs one step; its output goes to the terminal, or to `logFile` when it runs beside another. */
function run(step: Step, logFile?: string): Promise<Outcome> {
  const t0 = Date.now();
  if (step.report && existsSync(step.report)) rmSync(step.report);
  return new Promise((resolve) => {
    const child = spawn(step.command, step.args, {
      cwd: root,
      stdio: logFile ? ['ignore', 'pipe', 'pipe'] : 'inherit',
      env: childEnv,
    });
    if (logFile) {
      mkdirSync(path.dirname(logFile), { recursive: true });
      const out = createWriteStream(logFile);
      child.stdout?.pipe(out, { end: false });
      child.stderr?.pipe(out, { end: false });
      child.on('close', () => out.end());
    }
    const finish = (status: number | null) => {
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
        } else if (status !== 0) {
          failed += 1; // the runner died before it could report: count the step as one failure
        }
      }
      if (status !== 0) failedSteps.push(step.name);
      resolve({ ok: status === 0, seconds });
    };
    child.on('error', () => finish(1));
    child.on('close', (code) => finish(code));
  });
}

const label = (step: Step) => `[test ${steps.indexOf(step) + 1}/${steps.length}] ${step.name}`;

async function main(): Promise<void> {
  const besides = new Map<string, Step>();
  for (const step of steps)
    if (step.beside && steps.some((s) => s.name === step.beside)) besides.set(step.beside, step);
  for (const step of steps) {
    if (step.beside && besides.get(step.beside) === step) continue; // started with the step it runs beside
    const side = besides.get(step.name);
    let sideRun: Promise<Outcome> | undefined;
    let sideLog = '';
    if (side) {
      sideLog = path.join(root, 'node_modules', '.cache', `test-${side.name}.log`);
      process.stdout.write(`\n${label(side)} ... (beside ${step.name}; its output follows when both end)\n`);
      sideRun = run(side, sideLog);
    }
    process.stdout.write(`\n${label(step)} ...\n`);
    const outcome = await run(step);
    process.stdout.write(`${label(step)} ${outcome.ok ? 'passed' : 'FAILED'} in ${outcome.seconds}s\n`);
    if (side && sideRun) {
      const sideOutcome = await sideRun;
      process.stdout.write(`\n${label(side)} output:\n`);
      if (existsSync(sideLog)) process.stdout.write(readFileSync(sideLog, 'utf8'));
      process.stdout.write(
        `${label(side)} ${sideOutcome.ok ? 'passed' : 'FAILED'} in ${sideOutcome.seconds}s (beside ${step.name})\n`,
      );
    }
  }

  const total = ((Date.now() - started) / 1000).toFixed(1);
  process.stdout.write(
    `\n${failedSteps.length ? `failed steps: ${failedSteps.join(', ')}` : 'all steps passed'} (${total}s)\n`,
  );
  process.stdout.write(`tests: ${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}\n`);
  process.exit(failedSteps.length > 0 || failed > 0 ? 1 : 0);
}

void main();
