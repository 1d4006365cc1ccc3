#!/usr/bin/env node
// `npm run build`: every service compiled to JavaScript with one tool (esbuild), `services/<name>/dist/main.js`
// (and `dist/migrate.js`), run with plain `node`; and `npm start` itself (scripts/start.ts and the services it
// composes) to `dist/start.js`. The workspace libraries are bundled in (their package entry points are
// TypeScript), and so are a few pure-JavaScript packages (`BUNDLED_PACKAGES`); every other package stays
// external and is required at run time from where pnpm installed it, by a path relative to the bundle, so the repository layout (or an image with the same layout and
// production dependencies only) runs it. `__dirname` in a bundled source is that source's folder, as under
// tsx (a service finds its migrations beside its sources whichever bundle it is in). Skips a bundle whose
// sources have not changed since its last build (a hash of what it reads and the lockfile in
// `dist/.build-hash`); `--force` rebuilds all. Files are replaced by a rename, so a process starting
// while another one builds never reads half a file.
//
// Each entry point is two files: the bundle (`main.bundle.js`, written as the CommonJS wrapper function, so
// it is run only through the loader) and `main.js`, a two-line loader that runs
// the bundle with a V8 code cache (libs/runtime/src/compile-cache.ts, bundled beside it as
// `code-cache.js`): a start skips parsing the bundle. The build writes a first cache
// (`main.bundle.js.code-cache`); each start replaces it with a fuller one where it can write.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** Every service folder with a `src/main.ts`. */
export function services() {
  return readdirSync(path.join(root, 'services')).filter((name) =>
    existsSync(path.join(root, 'services', name, 'src', 'main.ts')),
  );
}

function sourceFiles(dir, out = []) {
  if (!existsSync(dir)) return out;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name === 'dist') continue;
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) sourceFiles(full, out);
    else if (/\.(ts|tsx|json)$/.test(entry.name)) out.push(full);
  }
  return out;
}

function hashFiles(files, hash = createHash('sha256')) {
  for (const file of files.sort()) {
    if (!existsSync(file)) continue;
    hash.update(path.relative(root, file));
    hash.update(readFileSync(file));
  }
  return hash.digest('hex');
}

/**
 * A hash of what a service's build reads: every lib's and service's sources and manifests, the lockfile,
 * and this file.
 */
export function sourceHash() {
  const files = [path.join(root, 'pnpm-lock.yaml'), fileURLToPath(import.meta.url)];
  for (const group of ['libs', 'services'])
    for (const name of readdirSync(path.join(root, group))) {
      files.push(...sourceFiles(path.join(root, group, name, 'src')));
      files.push(path.join(root, group, name, 'package.json'));
    }
  return hashFiles(files);
}

/**
 * Plain-JavaScript packages of many small modules that every service loads at start, bundled in too: Node
 * loading some 400 files one by one was most of a start's time before the first line of ours ran.
 */
const BUNDLED_PACKAGES = [
  /^zod(\/|$)/,
  /^drizzle-orm(\/|$)/,
  /^hono(\/|$)/,
  /^@hono\/node-server(\/|$)/,
  /^@opentelemetry\//,
  /^date-fns(\/|$)/,
  /^@date-fns\/tz(\/|$)/,
  /^prom-client(\/|$)/,
  /^undici(\/|$)/,
];

/**
 * External packages whose loading does nothing but define what they export: when a bundle uses none of
 * it (PGlite in a service run as its own process), esbuild drops the `require()` too.
 */
const SIDE_EFFECT_FREE_PACKAGES = [/^@electric-sql\/pglite(\/|$)/];

/**
 * Bundles `@payrail/*` and `BUNDLED_PACKAGES`; leaves every other package external, required by a path
 * relative to the bundle.
 */
function externalPackages(outdir) {
  return {
    name: 'external-packages',
    setup(build) {
      build.onResolve({ filter: /^[^./]/ }, async (args) => {
        if (args.pluginData?.resolving || args.path.startsWith('@payrail/')) return undefined;
        if (BUNDLED_PACKAGES.some((name) => name.test(args.path))) return undefined;
        if (args.path.startsWith('node:') || isBuiltin(args.path)) return { path: args.path, external: true };
        const resolved = await build.resolve(args.path, {
          kind: 'require-call',
          resolveDir: args.resolveDir,
          pluginData: { resolving: true },
        });
        if (resolved.errors.length > 0) return { errors: resolved.errors };
        const relative = path.relative(outdir, resolved.path).split(path.sep).join('/');
        return {
          path: relative.startsWith('.') ? relative : `./${relative}`,
          external: true,
          sideEffects: !SIDE_EFFECT_FREE_PACKAGES.some((name) => name.test(args.path)),
        };
      });
    },
  };
}

/**
 * `__dirname` in a workspace source means that source's folder, wherever the bundle is: a service's
 * `path.join(__dirname, '..', 'drizzle')` finds its migrations from its own bundle and from `dist/start.js`.
 */
function sourceDirname(outdir) {
  return {
    name: 'source-dirname',
    setup(build) {
      build.onLoad({ filter: /\.tsx?$/ }, (args) => {
        if (args.path.includes(`${path.sep}node_modules${path.sep}`)) return undefined;
        // The loader names `__dirname` only as the wrapper's parameter (BUNDLE_BANNER).
        if (args.path === CODE_CACHE_SOURCE) return undefined;
        const contents = readFileSync(args.path, 'utf8');
        if (!contents.includes('__dirname')) return undefined;
        const relative = path.relative(outdir, path.dirname(args.path)).split(path.sep).join('/');
        return {
          contents: contents.replace(
            /\b__dirname\b/g,
            `require('node:path').join(__dirname, ${JSON.stringify(relative)})`,
          ),
          loader: args.path.endsWith('x') ? 'tsx' : 'ts',
        };
      });
    },
  };
}

const builtins = new Set((await import('node:module')).builtinModules);
function isBuiltin(name) {
  return builtins.has(name) || builtins.has(name.split('/')[0]);
}

/** What is built: each service, and `npm start` (scripts/start.ts, which also reads the rest of scripts/). */
function bundles() {
  const serviceBundles = services().map((name) => {
    const dir = path.join(root, 'services', name);
    return {
      name,
      outdir: path.join(dir, 'dist'),
      entryPoints: ['main', 'migrate']
        .filter((entry) => existsSync(path.join(dir, 'src', `${entry}.ts`)))
        .map((entry) => ({ in: path.join(dir, 'src', `${entry}.ts`), out: entry })),
      reads: [],
    };
  });
  const start = {
    name: 'start',
    outdir: path.join(root, 'dist'),
    entryPoints: [{ in: path.join(root, 'scripts', 'start.ts'), out: 'start' }],
    reads: sourceFiles(path.join(root, 'scripts')),
  };
  return [...serviceBundles, start];
}

let esbuild;

const CODE_CACHE_SOURCE = path.join(root, 'libs', 'runtime', 'src', 'compile-cache.ts');
/** The same string as `BUNDLE_BANNER` in compile-cache.ts (checked by its test). */
const BUNDLE_BANNER = '(function (exports, require, module, __filename, __dirname) {';

/** `<entry>.js`: runs `<entry>.bundle.js` through the code cache (see the comment at the top). */
function loaderSource(entry) {
  return [
    `// Written by scripts/build.mjs: runs ${entry}.bundle.js with its V8 code cache (libs/runtime/src/compile-cache.ts).`,
    `require('./code-cache.js').loadWithCodeCache(require('node:path').join(__dirname, '${entry}.bundle.js'), module);`,
    '',
  ].join('\n');
}

function writeAtomically(file, contents) {
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, contents);
  renameSync(temporary, file);
}

async function build({ outdir, entryPoints }) {
  // Loaded only when something is to be built: `npm start` with nothing changed does not pay for it.
  esbuild ??= await import('esbuild');
  const options = {
    outdir,
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    // `import()` becomes `require()`: the loader runs the bundle through `vm.Script`, where a dynamic
    // import needs a callback that Node 20 loses on a script compiled from a code cache.
    supported: { 'dynamic-import': false },
    // Externals are require()d: their CommonJS entry points.
    mainFields: ['main', 'module'],
    conditions: ['require', 'node'],
    sourcemap: 'linked',
    jsx: 'automatic',
    jsxImportSource: 'hono/jsx',
    logLevel: 'warning',
    write: false,
    plugins: [sourceDirname(outdir), externalPackages(outdir)],
  };
  const [bundles, loader] = await Promise.all([
    esbuild.build({
      ...options,
      entryPoints: entryPoints.map((entry) => ({ in: entry.in, out: `${entry.out}.bundle` })),
      // Each bundle is the CommonJS wrapper function itself (`BUNDLE_BANNER` in compile-cache.ts): the
      // loader compiles it as it is, not a wrapped copy.
      banner: { js: BUNDLE_BANNER },
      footer: { js: '})' },
    }),
    esbuild.build({ ...options, entryPoints: [{ in: CODE_CACHE_SOURCE, out: 'code-cache' }] }),
  ]);
  mkdirSync(outdir, { recursive: true });
  for (const file of [...bundles.outputFiles, ...loader.outputFiles])
    writeAtomically(file.path, file.contents);
  const { writeBuildCache } = createRequire(import.meta.url)(path.join(outdir, 'code-cache.js'));
  for (const entry of entryPoints) {
    writeBuildCache(path.join(outdir, `${entry.out}.bundle.js`));
    writeAtomically(path.join(outdir, `${entry.out}.js`), loaderSource(entry.out));
    // The source map of the bundle is `<entry>.bundle.js.map`; the one an earlier build left is stale.
    rmSync(path.join(outdir, `${entry.out}.js.map`), { force: true });
  }
}

/**
 * Builds every bundle whose sources changed since its last build; returns the names built. Stops
 * esbuild's helper process afterwards, so none is left beside a started system.
 */
export async function buildAll({ force = false } = {}) {
  const common = sourceHash();
  const built = [];
  try {
    await Promise.all(
      bundles().map(async (bundle) => {
        // A bundle that reads more than the libs and services: their hash, and its own files.
        const hash =
          bundle.reads.length === 0 ? common : hashFiles(bundle.reads, createHash('sha256').update(common));
        const stamp = path.join(bundle.outdir, '.build-hash');
        if (!force && existsSync(stamp) && readFileSync(stamp, 'utf8') === hash) return;
        await build(bundle);
        writeFileSync(stamp, hash);
        built.push(bundle.name);
      }),
    );
  } finally {
    await esbuild?.stop();
  }
  return built;
}

/** `buildAll`, saying on stdout what was built (nothing when `quiet` and all was up to date). */
export async function buildAndSay({ force = false, quiet = false } = {}) {
  const started = Date.now();
  const built = await buildAll({ force });
  if (built.length > 0)
    process.stdout.write(`[build] ${built.sort().join(', ')} in ${Date.now() - started} ms\n`);
  else if (!quiet) process.stdout.write('[build] everything is up to date\n');
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url))
  await buildAndSay({ force: process.argv.includes('--force') });
