import type { TestProject } from 'vitest/node';
import { type ChromiumAvailability, ensureChromium } from './chromium';

declare module 'vitest' {
  export interface ProvidedContext {
    chromium: ChromiumAvailability;
  }
}

/** Vitest global setup of the browser project: Chromium found or installed once per run. */
export default function setup(project: TestProject): void {
  const chromium = ensureChromium();
  if (!chromium.available) {
    const line = '!'.repeat(100);
    console.error(`\n${line}\n[browser] BROWSER TESTS SKIPPED: ${chromium.reason}\n${line}\n`);
  }
  project.provide('chromium', chromium);
}
