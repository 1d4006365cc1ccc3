#!/usr/bin/env node
// `npm run build`: every service compiled to JavaScript with one tool (esbuild), `services/<name>/dist/main.js`
// (and `dist/migrate.js`), run with plain `node`. The workspace libraries are bundled in (their package
// entry points are TypeScript); every other package stays external and is required at run time from where
// pnpm installed it, by a path relative to the bundle, so the repository layout (or an image with the
// same layout and production dependencies only) runs it. Skips a service whose sources have not changed
// since its last build (a hash of the workspace's sources and the lockfile in `dist/.build-hash`);
// `--force` rebuilds all.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';

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

/** A hash of what a build reads: every lib's and service's sources and manifests, and the lockfile. */
export function sourceHash() {
  const hash = createHash('sha256');
  const files = [path.join(root, 'pnpm-lock.yaml')];
  for (const group of ['libs', 'services'])
    for (const name of readdirSync(path.join(root, group))) {
      files.push(...sourceFiles(path.join(root, group, name, 'src')));
      files.push(path.join(root, group, name, 'package.json'));
    }
  for (const file of files.sort()) {
    if (!existsSync(file)) continue;
    hash.update(path.relative(root, file));
    hash.update(readFileSync(file));
  }
  return hash.digest('hex');
}

/** Bundles `@payrail/*`; leaves every other package external, required by a path relative to the bundle. */
function externalPackages(outdir) {
  return {
    name: 'external-packages',
    setup(build) {
      build.onResolve({ filter: /^[^./]/ }, async (args) => {
        if (args.pluginData?.resolving || args.path.startsWith('@payrail/')) return undefined;
        if (args.path.startsWith('node:') || isBuiltin(args.path)) return { path: args.path, external: true };
        const resolved = await build.resolve(args.path, {
          kind: 'require-call',
          resolveDir: args.resolveDir,
          pluginData: { resolving: true },
        });
        if (resolved.errors.length > 0) return { errors: resolved.errors };
        const relative = path.relative(outdir, resolved.path).split(path.sep).join('/');
        return { path: relative.startsWith('.') ? relative : `./${relative}`, external: true };
      });
    },
  };
}

const builtins = new Set((await import('node:module')).builtinModules);
function isBuiltin(name) {
  return builtins.has(name) || builtins.has(name.split('/')[0]);
}

export async function buildService(name) {
  const dir = path.join(root, 'services', name);
  const outdir = path.join(dir, 'dist');
  const entryPoints = ['main', 'migrate']
    .filter((entry) => existsSync(path.join(dir, 'src', `${entry}.ts`)))
    .map((entry) => ({ in: path.join(dir, 'src', `${entry}.ts`), out: entry }));
  await esbuild.build({
    entryPoints,
    outdir,
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    // Externals are require()d: their CommonJS entry points.
    mainFields: ['main', 'module'],
    conditions: ['require', 'node'],
    sourcemap: 'linked',
    jsx: 'automatic',
    jsxImportSource: 'hono/jsx',
    logLevel: 'warning',
    plugins: [externalPackages(outdir)],
  });
}

/** Builds every service whose sources changed since its last build; returns the names built. */
export async function buildAll({ force = false } = {}) {
  const hash = sourceHash();
  const built = [];
  await Promise.all(
    services().map(async (name) => {
      const stamp = path.join(root, 'services', name, 'dist', '.build-hash');
      if (!force && existsSync(stamp) && readFileSync(stamp, 'utf8') === hash) return;
      await buildService(name);
      writeFileSync(stamp, hash);
      built.push(name);
    }),
  );
  return built;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const started = Date.now();
  const built = await buildAll({ force: process.argv.includes('--force') });
  process.stdout.write(
    built.length > 0
      ? `[build] ${built.sort().join(', ')} in ${Date.now() - started} ms\n`
      : '[build] every service is up to date\n',
  );
}
