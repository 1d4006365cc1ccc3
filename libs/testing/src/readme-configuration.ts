/**
 * A service's README says how it is configured (issue 26, item 8): under `## Configuration`, a table of the
 * service's own variables (`| variable | default | ... |`, one row each, as its `src/config.ts` parses
 * them) and, in the same section, the host's variables (`standaloneEnvSchema` of `@payrail/runtime`)
 * named in backticks. `configurationMismatches` says where the README and the schemas differ.
 */

/** What this needs of a zod object schema: its fields, each of which parses `undefined` to its default. */
export interface EnvSchema {
  shape: Record<string, { safeParse(input: unknown): { success: boolean; data?: unknown } }>;
}

export interface ReadmeConfiguration {
  /** The table's rows: the variable (first cell) and its default (second cell), as written. */
  rows: Array<{ variable: string; default: string }>;
  /** Every `VARIABLE` the section names in backticks, the table's included. */
  named: string[];
}

const VARIABLE = /`([A-Z][A-Z0-9_]+)`/g;

export function readmeConfiguration(markdown: string): ReadmeConfiguration {
  const start = markdown.search(/^## Configuration\s*$/m);
  if (start < 0) return { rows: [], named: [] };
  const rest = markdown.slice(start).split('\n').slice(1);
  const end = rest.findIndex((text) => /^## /.test(text));
  const section = (end < 0 ? rest : rest.slice(0, end)).join('\n');
  const rows: ReadmeConfiguration['rows'] = [];
  for (const text of section.split('\n')) {
    const cells = text.split('|').map((cell) => cell.trim());
    const variable = /^`([A-Z][A-Z0-9_]+)`$/.exec(cells[1] ?? '')?.[1];
    if (variable) rows.push({ variable, default: (cells[2] ?? '').replace(/`/g, '') });
  }
  return { rows, named: [...new Set([...section.matchAll(VARIABLE)].map((match) => match[1] as string))] };
}

/** The default a schema's field gives an unset variable, as a README writes it (`—` for none). */
function defaultOf(field: EnvSchema['shape'][string]): string {
  const parsed = field.safeParse(undefined);
  return parsed.success && parsed.data !== undefined ? String(parsed.data) : '—';
}

/**
 * Where the README's configuration and the schemas differ: a variable of the service's schema without its
 * row (or with another default), a row the schema does not have, a host variable not named, a name that is
 * neither's. Empty when they agree.
 */
export function configurationMismatches(markdown: string, own: EnvSchema, host: EnvSchema): string[] {
  const { rows, named } = readmeConfiguration(markdown);
  const mismatches: string[] = [];
  const rowOf = new Map(rows.map((row) => [row.variable, row]));
  for (const [variable, field] of Object.entries(own.shape)) {
    const row = rowOf.get(variable);
    if (!row) mismatches.push(`${variable} (config.ts) has no row in the README's configuration table`);
    else if (row.default !== defaultOf(field)) {
      mismatches.push(
        `${variable}: the README's default is ${row.default}, config.ts's is ${defaultOf(field)}`,
      );
    }
  }
  for (const row of rows) {
    if (!(row.variable in own.shape))
      mismatches.push(`${row.variable} is in the README's table, not in config.ts`);
  }
  for (const variable of Object.keys(host.shape)) {
    if (!named.includes(variable)) mismatches.push(`${variable} (the host's) is not named in the README`);
  }
  for (const variable of named) {
    if (!(variable in own.shape) && !(variable in host.shape)) {
      mismatches.push(
        `${variable} is named in the README's configuration, but neither config.ts nor the host reads it`,
      );
    }
  }
  return mismatches;
}
