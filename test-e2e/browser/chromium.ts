import { spawnSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';

/** Debian's Chromium: the only browser the tests drive (playwright-core never downloads one). */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** The launch arguments for a headless Chromium in a container: no sandbox, no GPU, no background traffic. */
export const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking'];

export type ChromiumAvailability = { available: true; path: string } | { available: false; reason: string };

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function run(command: string, args: string[], log: (line: string) => void): boolean {
  log(`[browser] ${command} ${args.join(' ')}`);
  const result = spawnSync(command, args, {
    stdio: ['ignore', 'inherit', 'inherit'],
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    timeout: 15 * 60_000,
  });
  return result.status === 0;
}

/**
 * Chromium at `CHROMIUM_PATH`, installed with apt-get when it is missing and this process may install
 * packages (root on a Debian-like system). When it cannot be had, the reason, for a loud skip.
 */
export function ensureChromium(log: (line: string) => void = console.log): ChromiumAvailability {
  if (executable(CHROMIUM_PATH)) return { available: true, path: CHROMIUM_PATH };
  if (CHROMIUM_PATH !== '/usr/bin/chromium') {
    return { available: false, reason: `CHROMIUM_PATH=${CHROMIUM_PATH} is not an executable` };
  }
  if (typeof process.getuid !== 'function' || process.getuid() !== 0) {
    return {
      available: false,
      reason:
        'Chromium is not installed at /usr/bin/chromium and this user cannot install it (not root): run `sudo apt-get install -y chromium`',
    };
  }
  if (!executable('/usr/bin/apt-get')) {
    return {
      available: false,
      reason: 'Chromium is not installed and there is no apt-get to install it with',
    };
  }
  log('[browser] Chromium is missing: installing the Debian package (first run only) ...');
  // The package lists may be missing or stale on a fresh machine: refresh them, then install.
  if (!run('apt-get', ['install', '-y', '--no-install-recommends', 'chromium'], log)) {
    run('apt-get', ['update'], log);
    run('apt-get', ['install', '-y', '--no-install-recommends', 'chromium'], log);
  }
  if (executable(CHROMIUM_PATH)) return { available: true, path: CHROMIUM_PATH };
  return {
    available: false,
    reason: 'apt-get could not install the chromium package (see its output above)',
  };
}
