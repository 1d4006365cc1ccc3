import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import {
  BUNDLE_BANNER,
  cacheFilesFor,
  loadWithCodeCache,
  signalReady,
  writeBuildCache,
} from '../src/compile-cache';

// The loader of the compiled bundles (dist/main.js): a bundle runs as `require` would run it, with a V8
// code cache when there is a good one, and never fails a start because of the cache.
const root = mkdtempSync(path.join(os.tmpdir(), 'payrail-code-cache-'));
let dir: string;
let bundle: string;
let files: string[];
let round = 0;

/** A CommonJS bundle that requires a sibling file and answers `value`. */
function writeBundle(value: string) {
  writeFileSync(
    bundle,
    `const dep = require('./dep.js');\nmodule.exports = { value: ${value}, dep, dir: __dirname, file: __filename, self: module.id };\n`,
  );
}

/** The first line of a cache file: format, Node, V8, architecture, source hash, kind. */
function header(file: string): string {
  const content = readFileSync(file);
  return content.subarray(0, content.indexOf(10)).toString('utf8');
}

/** Loads the bundle, then lets it "become ready" and waits for the cache to be saved (or not). */
async function loadAndSettle(environment: Record<string, string | undefined> = {}) {
  const result = loadWithCodeCache(bundle, undefined, {
    cacheFiles: files,
    saveAfterReadyMs: 0,
    environment,
  });
  signalReady();
  return { ...result, saved: await result.saved };
}

beforeEach(() => {
  round += 1;
  dir = path.join(root, `case-${round}`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir);
  bundle = path.join(dir, 'main.bundle.js');
  writeFileSync(path.join(dir, 'dep.js'), 'module.exports = "dep";\n');
  writeBundle('"one"');
  files = [`${bundle}.code-cache`, path.join(dir, 'elsewhere', 'main.bundle.js.code-cache')];
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('loadWithCodeCache', () => {
  it('runs the bundle as require would: its exports, __dirname, __filename and its own require', async () => {
    const first = await loadAndSettle();
    expect(first.status).toBe('missing');
    expect(first.exports).toEqual({ value: 'one', dep: 'dep', dir, file: bundle, self: bundle });
  });

  it('runs a bundle the build wrote as the wrapper function itself, cached the same way', async () => {
    writeFileSync(
      bundle,
      `${BUNDLE_BANNER}\nmodule.exports = { value: 'wrapped', dep: require('./dep.js'), dir: __dirname };\n})\n`,
    );
    const first = await loadAndSettle();
    expect(first.exports).toEqual({ value: 'wrapped', dep: 'dep', dir });
    expect(first.saved).toBe(true);
    expect((await loadAndSettle()).status).toBe('accepted');
    // The build writes that same banner.
    expect(readFileSync(path.join(__dirname, '..', '..', '..', 'scripts', 'build.mjs'), 'utf8')).toContain(
      `const BUNDLE_BANNER = '${BUNDLE_BANNER}';`,
    );
  });

  it('saves a cache once the service is ready, and the next start uses it', async () => {
    const first = await loadAndSettle();
    expect(first.saved).toBe(true);
    expect(header(files[0] as string)).toMatch(
      new RegExp(`^payrail-code-cache/1 ${process.version} \\S+ ${process.arch} [0-9a-f]{64} warm$`),
    );
    const second = await loadAndSettle();
    expect(second.status).toBe('accepted');
    // A warm cache that V8 accepted is not written again.
    expect(second.saved).toBe(false);
    expect(second.exports).toMatchObject({ value: 'one' });
  });

  it('ignores the cache of a changed bundle, even one of the same length', async () => {
    await loadAndSettle();
    writeBundle('"two"');
    const changed = await loadAndSettle();
    expect(changed.status).toBe('missing');
    expect(changed.exports).toMatchObject({ value: 'two' });
    // And replaces it with one for the new source.
    expect(changed.saved).toBe(true);
    expect((await loadAndSettle()).status).toBe('accepted');
  });

  it('ignores a cache made by another Node version', async () => {
    await loadAndSettle();
    const cache = files[0] as string;
    const content = readFileSync(cache);
    writeFileSync(
      cache,
      Buffer.from(content.toString('latin1').replace(process.version, 'v0.0.1'), 'latin1'),
    );
    const other = await loadAndSettle();
    expect(other.status).toBe('missing');
    expect(other.exports).toMatchObject({ value: 'one' });
  });

  it('runs the bundle when V8 rejects the cache (damaged bytes), and writes a good one', async () => {
    // A source this process has not compiled yet (V8 would take it from its own in-memory cache), and a
    // cache file made for it whose bytes are damaged.
    writeBundle('"damaged"');
    const source = readFileSync(bundle, 'utf8');
    const digest = createHash('sha256').update(source).digest('hex');
    const key = `payrail-code-cache/1 ${process.version} ${process.versions.v8} ${process.arch} ${digest}`;
    writeFileSync(
      files[0] as string,
      Buffer.concat([Buffer.from(`${key} warm\n`), Buffer.alloc(4096, 0x5a)]),
    );
    const damaged = await loadAndSettle();
    expect(damaged.status).toBe('rejected');
    expect(damaged.exports).toMatchObject({ value: 'damaged' });
    expect(damaged.saved).toBe(true);
    expect((await loadAndSettle()).status).toBe('accepted');
  });

  it('starts when no cache can be written, and writes to the next place that can be', async () => {
    // A regular file where a folder should be: unwritable even for root.
    const blocker = path.join(dir, 'blocker');
    writeFileSync(blocker, '');
    files = [path.join(blocker, 'main.bundle.js.code-cache')];
    const nowhere = await loadAndSettle();
    expect(nowhere.exports).toMatchObject({ value: 'one' });
    expect(nowhere.saved).toBe(false);

    const fallback = path.join(dir, 'tmp', 'main.bundle.js.code-cache');
    files = [path.join(blocker, 'main.bundle.js.code-cache'), fallback];
    expect((await loadAndSettle()).saved).toBe(true);
    expect(header(fallback)).toMatch(/ warm$/);
    expect((await loadAndSettle()).status).toBe('accepted');
  });

  it('prefers a warm cache to the cold one the build wrote', async () => {
    expect(writeBuildCache(bundle)).toBe(true);
    const beside = cacheFilesFor(bundle)[0] as string;
    expect(header(beside)).toMatch(/ cold$/);
    files = [beside, path.join(dir, 'tmp', 'main.bundle.js.code-cache')];
    const cold = await loadAndSettle();
    expect(cold.status).toBe('accepted');
    // Upgraded to a warm one once ready.
    expect(cold.saved).toBe(true);
    expect(header(beside)).toMatch(/ warm$/);
  });

  it('runs the bundle without a cache when PAYRAIL_CODE_CACHE=off, and writes none', async () => {
    const off = await loadAndSettle({ PAYRAIL_CODE_CACHE: 'off' });
    expect(off.status).toBe('off');
    expect(off.exports).toMatchObject({ value: 'one', dep: 'dep' });
    expect(off.saved).toBe(false);
    expect(() => readFileSync(files[0] as string)).toThrow();
  });
});
