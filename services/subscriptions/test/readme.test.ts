import { readFileSync } from 'node:fs';
import path from 'node:path';
import { standaloneEnvSchema } from '@payrail/runtime';
import { configurationMismatches } from '@payrail/testing';
import { describe, expect, it } from 'vitest';
import { configSchema } from '../src/config';
import { subscriptionsService } from '../src/service';

describe("subscriptions' README", () => {
  it('names every variable config.ts and the host read, with its default, and no other', () => {
    const readme = readFileSync(path.join(__dirname, '..', 'README.md'), 'utf8');
    expect(configurationMismatches(readme, configSchema, standaloneEnvSchema(subscriptionsService))).toEqual(
      [],
    );
  });
});
