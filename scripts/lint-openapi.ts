// `npm run lint:openapi` (and a step of `npm test`): Redocly's recommended rules (`redocly.yaml`) on the
// OpenAPI document the gateway serves at /openapi.json, built by the same function and written to a file
// for the linter. Passes only with no error and no warning. Offline: Redocly's usage data and its update
// check are turned off by their documented switches, and the recommended ruleset ships inside the package.
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { openApiDocument } from '@payrail/gateway';

const root = path.resolve(__dirname, '..');
const documentPath = path.join('node_modules', '.cache', 'openapi', 'openapi.json');

export interface LintResult {
  ok: boolean;
  /** What Redocly printed (its stylish format). */
  output: string;
}

/** Lints `document` (written to `file`, relative to the repository) with the repository's redocly.yaml. */
export function lintOpenApi(document: unknown, file = documentPath): LintResult {
  mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
  writeFileSync(path.join(root, file), `${JSON.stringify(document, null, 2)}\n`);
  const result = spawnSync(
    path.join(root, 'node_modules', '.bin', 'redocly'),
    ['lint', file, '--config', 'redocly.yaml', '--format', 'stylish'],
    {
      cwd: root,
      encoding: 'utf8',
      env: {
        ...process.env,
        // No usage data sent (also `telemetry: off` in redocly.yaml), no look-up of a newer version.
        REDOCLY_TELEMETRY: 'off',
        REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true',
      },
    },
  );
  const output = `${result.stdout ?? ''}${result.stderr ?? ''}`;
  // Redocly exits 0 when only warnings were found; they fail this check too.
  const warned = /You have \d+ warnings?\./.test(output);
  return { ok: result.status === 0 && !warned && /Woohoo!/.test(output), output };
}

if (require.main === module) {
  const { ok, output } = lintOpenApi(openApiDocument());
  process.stdout.write(output);
  if (!ok) process.stdout.write('OpenAPI lint failed: Redocly found errors or warnings (above).\n');
  process.exit(ok ? 0 : 1);
}
