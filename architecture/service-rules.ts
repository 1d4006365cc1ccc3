/**
 * The rules every service keeps (issue 26: one edge for every service), checked on the source with the
 * TypeScript compiler API by `service-rules.test.ts` in `npm test`:
 *
 * - `process-env`: nothing reads `process.env`, nor a variable of the environment handed to the service
 *   (`env.ADMIN_TOKEN`), but the service's `src/config.ts` (`src/main.ts` may hand `process.env` to a
 *   call); a service has a `src/config.ts`.
 * - `consumer-file`: a consumer (a `Subscription`: `consumer`, `eventTypes`, `handler`) lives in
 *   `src/adapters/messaging/<action>-on-<event>.consumer.ts`, one per file, and runs in the unit of work
 *   (it imports neither `@payrail/db` nor the inbox's own wrappers).
 * - `error-table`: a domain error (a class of `src/domain`) extends `DomainError`, and every code it may
 *   carry is in the table the service gives its app (`createApp({ errors: TABLE })`).
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

export type RuleName = 'process-env' | 'consumer-file' | 'error-table';

export interface RuleViolation {
  rule: RuleName;
  service: string;
  /** Relative to the service's folder. */
  file: string;
  message: string;
}

export interface CheckOptions {
  /** The folder that holds the services (`services/`). */
  servicesDir: string;
  /** The folder that holds the libraries (`libs/`), for `@payrail/*` imports. */
  libsDir: string;
  /** The error tables by name (`BILLING_ERRORS`: the code → status table of `@payrail/contracts`). */
  errorTables: Record<string, unknown>;
}

const CONSUMER_FILE = /^[a-z0-9]+(?:-[a-z0-9]+)*-on-[a-z0-9]+(?:-[a-z0-9]+)*\.consumer\.ts$/;
/** Ways of consuming that bypass the unit of work. */
const BYPASSES = new Set(['idempotentConsumer', 'idempotentBatchConsumer', 'idempotentStatement']);

function sourceFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return sourceFiles(full);
    return /\.tsx?$/.test(name) && !name.endsWith('.d.ts') ? [full] : [];
  });
}

export function serviceNames(servicesDir: string): string[] {
  return readdirSync(servicesDir)
    .filter((name) => existsSync(path.join(servicesDir, name, 'src')))
    .sort();
}

function isProcessEnv(node: ts.Node): boolean {
  return (
    ts.isPropertyAccessExpression(node) &&
    node.name.text === 'env' &&
    ts.isIdentifier(node.expression) &&
    node.expression.text === 'process'
  );
}

/** `env.SOME_VARIABLE` (or `environment.…`): a variable read from the environment handed to the service. */
function isVariableRead(node: ts.Node): boolean {
  return (
    ts.isPropertyAccessExpression(node) &&
    /^[A-Z][A-Z0-9_]*$/.test(node.name.text) &&
    ts.isIdentifier(node.expression) &&
    /^(env|environment)$/.test(node.expression.text)
  );
}

function visit(node: ts.Node, each: (node: ts.Node) => void): void {
  each(node);
  ts.forEachChild(node, (child) => visit(child, each));
}

function propertyNames(node: ts.ObjectLiteralExpression): Set<string> {
  const names = new Set<string>();
  for (const property of node.properties) {
    if (property.name && (ts.isIdentifier(property.name) || ts.isStringLiteral(property.name))) {
      names.add(property.name.text);
    }
  }
  return names;
}

/** A `Subscription` literal: what `bus.subscribe` takes. */
function isConsumerLiteral(node: ts.Node): node is ts.ObjectLiteralExpression {
  if (!ts.isObjectLiteralExpression(node)) return false;
  const names = propertyNames(node);
  return names.has('consumer') && names.has('eventTypes') && names.has('handler');
}

function line(file: ts.SourceFile, node: ts.Node): number {
  return file.getLineAndCharacterOfPosition(node.getStart(file)).line + 1;
}

/** `createApp({ errors: NAME })` in the service's sources: the name of its error table. */
function errorTableName(files: readonly ts.SourceFile[]): string | undefined {
  let name: string | undefined;
  for (const file of files) {
    visit(file, (node) => {
      if (!ts.isCallExpression(node) || !ts.isIdentifier(node.expression)) return;
      if (node.expression.text !== 'createApp') return;
      const [options] = node.arguments;
      if (!options || !ts.isObjectLiteralExpression(options)) return;
      for (const property of options.properties) {
        if (
          ts.isPropertyAssignment(property) &&
          ts.isIdentifier(property.name) &&
          property.name.text === 'errors' &&
          ts.isIdentifier(property.initializer)
        ) {
          name = property.initializer.text;
        }
      }
    });
  }
  return name;
}

/** Whether a class type extends the class of that name, directly or through others. */
function extendsClass(type: ts.Type, name: string, checker: ts.TypeChecker): boolean {
  if (!(type.flags & ts.TypeFlags.Object) || !((type as ts.ObjectType).objectFlags & ts.ObjectFlags.Class)) {
    return false;
  }
  return checker
    .getBaseTypes(type as ts.InterfaceType)
    .some((base) => base.getSymbol()?.getName() === name || extendsClass(base, name, checker));
}

/** The codes a `DomainError` class may carry: the string literals its `code` is typed with. */
function codesOf(declaration: ts.ClassDeclaration, checker: ts.TypeChecker): string[] | undefined {
  const instance = checker.getTypeAtLocation(declaration);
  const code = instance.getProperty('code');
  if (!code) return undefined;
  const type = checker.getTypeOfSymbolAtLocation(code, declaration);
  const members = type.isUnion() ? type.types : [type];
  if (!members.every((member) => member.isStringLiteral())) return undefined;
  return members.map((member) => (member as ts.StringLiteralType).value);
}

export function checkServices(options: CheckOptions): RuleViolation[] {
  const violations: RuleViolation[] = [];
  for (const service of serviceNames(options.servicesDir)) {
    violations.push(...checkService(service, options));
  }
  return violations;
}

export function checkService(service: string, options: CheckOptions): RuleViolation[] {
  const root = path.join(options.servicesDir, service);
  const src = path.join(root, 'src');
  const rel = (file: string) => path.relative(root, file);
  const violations: RuleViolation[] = [];
  const report = (rule: RuleName, file: string, message: string) =>
    violations.push({ rule, service, file: rel(file), message });

  const rootNames = sourceFiles(src);
  const program = ts.createProgram(rootNames, {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.Preserve,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    jsx: ts.JsxEmit.ReactJSX,
    jsxImportSource: 'hono/jsx',
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    types: ['node'],
    typeRoots: [path.join(options.libsDir, '..', 'node_modules', '@types')],
    baseUrl: options.libsDir,
    paths: { '@payrail/*': ['./*/src/index.ts'] },
  });
  const checker = program.getTypeChecker();
  const files = rootNames.flatMap((name) => program.getSourceFile(name) ?? []);

  // process-env
  const config = path.join(src, 'config.ts');
  if (!existsSync(config))
    report('process-env', config, 'no src/config.ts: the service parses its environment there');
  for (const file of files) {
    const relative = path.relative(src, file.fileName);
    if (relative === 'config.ts') continue;
    visit(file, (node) => {
      if (isVariableRead(node)) {
        report(
          'process-env',
          file.fileName,
          `reads ${node.getText(file)} (line ${line(file, node)}): only src/config.ts may`,
        );
        return;
      }
      if (!isProcessEnv(node)) return;
      const handedOn = relative === 'main.ts' && node.parent && ts.isCallExpression(node.parent);
      if (handedOn && (node.parent as ts.CallExpression).arguments.includes(node as ts.Expression)) return;
      report(
        'process-env',
        file.fileName,
        `reads process.env (line ${line(file, node)}): only src/config.ts may`,
      );
    });
  }

  // consumer-file
  const messaging = path.join(src, 'adapters', 'messaging');
  for (const file of files) {
    const inMessaging = path.dirname(file.fileName) === messaging;
    const name = path.basename(file.fileName);
    const isConsumerFile = inMessaging && name.endsWith('.consumer.ts');
    if (isConsumerFile && !CONSUMER_FILE.test(name)) {
      report('consumer-file', file.fileName, `${name} is not named <action>-on-<event>.consumer.ts`);
    }
    const consumers: ts.Node[] = [];
    visit(file, (node) => {
      if (isConsumerLiteral(node)) consumers.push(node);
    });
    if (!isConsumerFile && consumers.length > 0) {
      report(
        'consumer-file',
        file.fileName,
        'defines a consumer outside src/adapters/messaging/*.consumer.ts',
      );
    }
    if (isConsumerFile && consumers.length !== 1) {
      report('consumer-file', file.fileName, `holds ${consumers.length} consumers: one per file`);
    }
    if (!isConsumerFile) continue;
    for (const statement of file.statements) {
      if (!ts.isImportDeclaration(statement) || !ts.isStringLiteral(statement.moduleSpecifier)) continue;
      const from = statement.moduleSpecifier.text;
      if (from === '@payrail/db')
        report('consumer-file', file.fileName, 'imports @payrail/db: a consumer runs in its unit of work');
      const bindings = statement.importClause?.namedBindings;
      if (bindings && ts.isNamedImports(bindings)) {
        for (const element of bindings.elements) {
          if (BYPASSES.has(element.name.text)) {
            report(
              'consumer-file',
              file.fileName,
              `uses ${element.name.text}: a consumer runs in its unit of work`,
            );
          }
        }
      }
    }
  }

  // error-table
  const tableName = errorTableName(files);
  const table = tableName ? options.errorTables[tableName] : undefined;
  const domain = path.join(src, 'domain');
  for (const file of files) {
    visit(file, (node) => {
      if (!ts.isClassDeclaration(node) || !node.name || !node.heritageClauses) return;
      const type = checker.getTypeAtLocation(node);
      const isDomainError = extendsClass(type, 'DomainError', checker);
      const isError = isDomainError || extendsClass(type, 'Error', checker);
      if (!isDomainError) {
        if (isError && file.fileName.startsWith(`${domain}${path.sep}`)) {
          report(
            'error-table',
            file.fileName,
            `${node.name.text} extends Error, not DomainError: it has no code in the table`,
          );
        }
        return;
      }
      const abstract = node.modifiers?.some((modifier) => modifier.kind === ts.SyntaxKind.AbstractKeyword);
      if (abstract) return;
      const codes = codesOf(node, checker);
      if (!codes) {
        report('error-table', file.fileName, `${node.name.text}'s code is not typed as codes of a table`);
        return;
      }
      if (!table || typeof table !== 'object') {
        report(
          'error-table',
          file.fileName,
          `${node.name.text} is a DomainError, but createApp is given no error table (createApp({ errors }))`,
        );
        return;
      }
      for (const code of codes) {
        if (!Object.hasOwn(table, code)) {
          report('error-table', file.fileName, `${node.name.text}'s code ${code} is not in ${tableName}`);
        }
      }
    });
  }
  return violations;
}
