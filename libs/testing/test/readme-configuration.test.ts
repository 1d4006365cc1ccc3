import { describe, expect, it } from 'vitest';
import { configurationMismatches, type EnvSchema, readmeConfiguration } from '../src/readme-configuration';

/** A schema field as zod's: an unset variable parses to its default, or fails when it is required. */
const field = (fallback?: unknown, required = false): EnvSchema['shape'][string] => ({
  safeParse: (input) =>
    input !== undefined ? { success: true, data: input } : { success: !required, data: fallback },
});
const own: EnvSchema = {
  shape: { RUN_INTERVAL_MS: field(60_000), SIMULATED_TIME: field(false), TOKEN: field() },
};
const host: EnvSchema = { shape: { PORT: field(3003), DATABASE_URL: field(undefined, true) } };

const readme = (table: string, host = "Also the host's `PORT` and `DATABASE_URL`.") => `# svc

## Configuration

| variable | default | what |
| --- | --- | --- |
${table}

${host}

## Tests

\`NOT_CONFIG\` here is another section's.
`;

const good = [
  '| `RUN_INTERVAL_MS` | `60000` | how often |',
  '| `SIMULATED_TIME` | `false` | tests only |',
  '| `TOKEN` | — | a token |',
].join('\n');

describe("a README's configuration against the schemas", () => {
  it('reads the rows and every variable the section names', () => {
    const read = readmeConfiguration(readme(good));
    expect(read.rows).toEqual([
      { variable: 'RUN_INTERVAL_MS', default: '60000' },
      { variable: 'SIMULATED_TIME', default: 'false' },
      { variable: 'TOKEN', default: '—' },
    ]);
    expect(read.named.sort()).toEqual(['DATABASE_URL', 'PORT', 'RUN_INTERVAL_MS', 'SIMULATED_TIME', 'TOKEN']);
    expect(configurationMismatches(readme(good), own, host)).toEqual([]);
  });

  it('names a missing row, a wrong default, a row too many, a host variable unnamed, a stray name', () => {
    const table = [
      '| `RUN_INTERVAL_MS` | `1000` | how often |',
      '| `TOKEN` | — | a token |',
      '| `RETIRED` | `1` | gone |',
    ].join('\n');
    expect(configurationMismatches(readme(table, 'Also `PORT` and `DATABASE_PASSWORD`.'), own, host)).toEqual(
      [
        "RUN_INTERVAL_MS: the README's default is 1000, config.ts's is 60000",
        "SIMULATED_TIME (config.ts) has no row in the README's configuration table",
        "RETIRED is in the README's table, not in config.ts",
        "DATABASE_URL (the host's) is not named in the README",
        "RETIRED is named in the README's configuration, but neither config.ts nor the host reads it",
        "DATABASE_PASSWORD is named in the README's configuration, but neither config.ts nor the host reads it",
      ],
    );
  });
});
