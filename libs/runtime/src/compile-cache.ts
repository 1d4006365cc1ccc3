/**
 * A V8 code cache for the compiled bundles (`services/<name>/dist/main.bundle.js`, `dist/start.bundle.js`):
 * compiling a 2.6 MB bundle was the largest single cost of a start (V8 parsing all of it before the first
 * line runs). `dist/main.js` is a small loader that runs the bundle through `vm.Script` with the bytes V8
 * saved from an earlier start (`cachedData`), so V8 deserialises the compiled functions instead of parsing.
 * The same on Node 20, 22 and 24 (Node's own `module.enableCompileCache()`, 22.1+, saves a module's cache as
 * soon as it is compiled: the functions compiled lazily during the start are not in it; ours is written
 * once the service is ready, with them).
 *
 * Never in the way of a start: a cache that is missing, unreadable, made for other source (a hash of the
 * bundle), another Node/V8 version or architecture, or that V8 rejects (other V8 flags), is ignored, and
 * one that cannot be written (a read-only image) is not written; any of these starts as it would without
 * a cache. Where: beside the bundle (`<bundle>.code-cache`, the build writes a first one there), else in the
 * temporary folder (`$TMPDIR/payrail-code-cache/`, an emptyDir in Kubernetes). `PAYRAIL_CODE_CACHE=off`
 * compiles the bundle without a cache and writes none.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import Module from 'node:module';
import os from 'node:os';
import path from 'node:path';
import vm from 'node:vm';

/** Emitted on `process` once a service serves (`signalReady`): the loader saves the cache then. */
export const READY_EVENT = 'payrail:ready';
const FORMAT = 'payrail-code-cache/1';
/** Saved anyway this long after the start when no ready event came (`npm start`'s process mode). */
const SAVE_AFTER_MS = 15_000;
/** Saved this long after the ready event: not while the first requests (`/readyz`) are answered. */
const SAVE_AFTER_READY_MS = 500;

/** A cache made by compiling only (`cold`, at build time) or after the start ran (`warm`). */
type CacheKind = 'cold' | 'warm';

export type CacheStatus = 'accepted' | 'rejected' | 'missing' | 'off';

export interface LoadResult {
  exports: unknown;
  /** What happened to the cache on this start (tests, diagnostics). */
  status: CacheStatus;
  /** Resolves once the cache has been saved (true) or could not be / need not be (false). */
  saved: Promise<boolean>;
}

export interface CacheOptions {
  /** Folders to look in and write to, in order (default: beside the bundle, then the temporary folder). */
  cacheFiles?: string[];
  /** When to save the cache if no ready event comes first (default 15 s). */
  saveAfterMs?: number;
  /** How long after the ready event (default 0.5 s: not in the way of the first requests). */
  saveAfterReadyMs?: number;
  environment?: Record<string, string | undefined>;
}

/** Tells the loader (if the process was started through one) that the start is done. */
export function signalReady(): void {
  (process as NodeJS.EventEmitter).emit(READY_EVENT);
}

/** The cache files of a bundle, in the order they are read: beside it, then in the temporary folder. */
export function cacheFilesFor(bundle: string): string[] {
  const absolute = path.resolve(bundle);
  const tag = createHash('sha1').update(absolute).digest('hex').slice(0, 12);
  return [
    `${absolute}.code-cache`,
    path.join(os.tmpdir(), 'payrail-code-cache', `${tag}-${path.basename(absolute)}.code-cache`),
  ];
}

/** What a cache must have been made for: this format, Node, V8, architecture and bundle source. */
function cacheKey(source: string): string {
  const digest = createHash('sha256').update(source).digest('hex');
  return [FORMAT, process.version, process.versions.v8, process.arch, digest].join(' ');
}

interface FoundCache {
  kind: CacheKind;
  data: Buffer;
}

function readCache(file: string, key: string): FoundCache | undefined {
  try {
    const content = readFileSync(file);
    const newline = content.indexOf(10);
    if (newline < 0 || newline > 1024) return undefined;
    const header = content.subarray(0, newline).toString('utf8');
    const kind = header.slice(key.length + 1);
    if (!header.startsWith(`${key} `) || (kind !== 'cold' && kind !== 'warm')) return undefined;
    return { kind, data: content.subarray(newline + 1) };
  } catch {
    return undefined;
  }
}

/** The best cache made for this source: a warm one before a cold one, beside the bundle before elsewhere. */
function findCache(files: string[], key: string): FoundCache | undefined {
  let cold: FoundCache | undefined;
  for (const file of files) {
    const found = readCache(file, key);
    if (found?.kind === 'warm') return found;
    cold ??= found;
  }
  return cold;
}

/** Writes the cache to the first of `files` that can be written (by a rename: no reader sees half). */
function writeCache(files: string[], key: string, kind: CacheKind, data: Buffer): boolean {
  for (const file of files) {
    const temporary = `${file}.${process.pid}.tmp`;
    try {
      mkdirSync(path.dirname(file), { recursive: true });
      writeFileSync(temporary, Buffer.concat([Buffer.from(`${key} ${kind}\n`), data]));
      renameSync(temporary, file);
      return true;
    } catch {
      try {
        rmSync(temporary, { force: true });
      } catch {
        // Its folder cannot be made or read either: nothing was left there.
      }
    }
  }
  return false;
}

/**
 * What the build writes before a bundle (esbuild's `banner`, with `})` as its `footer`): the bundle is
 * the CommonJS wrapper function itself, so the loader compiles the file's own string instead of a
 * wrapped copy (2.6 MB more held for the life of the process).
 */
export const BUNDLE_BANNER = '(function (exports, require, module, __filename, __dirname) {';

function compile(file: string, source: string, cachedData?: Buffer): vm.Script {
  // No `importModuleDynamically`: Node 20 loses it on a script compiled from a cache, so the build turns
  // every `import()` of a bundle into `require()`.
  const wrapped = source.startsWith(BUNDLE_BANNER) ? source : Module.wrap(source);
  return new vm.Script(wrapped, { filename: file, cachedData });
}

/** Runs a CommonJS bundle as `require(bundle)` would, with its code cache; see the file's comment. */
export function loadWithCodeCache(
  bundle: string,
  parent?: NodeModule,
  options: CacheOptions = {},
): LoadResult {
  const file = path.resolve(bundle);
  const off = (options.environment ?? process.env).PAYRAIL_CODE_CACHE === 'off';
  const files = options.cacheFiles ?? cacheFilesFor(file);
  const source = readFileSync(file, 'utf8');
  const key = off ? '' : cacheKey(source);
  const found = off ? undefined : findCache(files, key);
  const script = compile(file, source, found?.data);
  const status: CacheStatus = off
    ? 'off'
    : !found
      ? 'missing'
      : script.cachedDataRejected
        ? 'rejected'
        : 'accepted';

  const saved =
    off || (status === 'accepted' && found?.kind === 'warm')
      ? Promise.resolve(false)
      : saveWhenReady(script, files, key, {
          afterMs: options.saveAfterMs ?? SAVE_AFTER_MS,
          afterReadyMs: options.saveAfterReadyMs ?? SAVE_AFTER_READY_MS,
        });

  const module = new Module(file, parent);
  module.filename = file;
  module.paths = (Module as unknown as { _nodeModulePaths(from: string): string[] })._nodeModulePaths(
    path.dirname(file),
  );
  (Module as unknown as { _cache: Record<string, NodeModule> })._cache[file] = module;
  const wrapper = script.runInThisContext({ displayErrors: true }) as (
    exports: unknown,
    require: NodeJS.Require,
    module: NodeModule,
    filename: string,
    dirname: string,
  ) => void;
  wrapper.call(module.exports, module.exports, Module.createRequire(file), module, file, path.dirname(file));
  module.loaded = true;
  return { exports: module.exports, status, saved };
}

/**
 * Saves the cache once: shortly after the ready event, before a natural exit (a one-shot migration), or
 * after `afterMs`, whichever comes first. With what V8 compiled until then: the start's own functions too.
 */
function saveWhenReady(
  script: vm.Script,
  files: string[],
  key: string,
  delays: { afterMs: number; afterReadyMs: number },
): Promise<boolean> {
  return new Promise((resolve) => {
    let done = false;
    const save = () => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      process.removeListener(READY_EVENT, ready);
      process.removeListener('beforeExit', save);
      try {
        resolve(writeCache(files, key, 'warm', script.createCachedData()));
      } catch {
        resolve(false);
      }
    };
    const ready = () => setTimeout(save, delays.afterReadyMs).unref();
    const timer = setTimeout(save, delays.afterMs);
    timer.unref();
    process.once(READY_EVENT, ready);
    process.once('beforeExit', save);
  });
}

/**
 * The build's first cache of a bundle, beside it: made by compiling only (the functions V8 compiles
 * eagerly), replaced by a warm one at the first start where the folder can be written.
 */
export function writeBuildCache(bundle: string): boolean {
  const file = path.resolve(bundle);
  try {
    const source = readFileSync(file, 'utf8');
    const [beside] = cacheFilesFor(file);
    return writeCache([beside as string], cacheKey(source), 'cold', compile(file, source).createCachedData());
  } catch {
    return false;
  }
}
