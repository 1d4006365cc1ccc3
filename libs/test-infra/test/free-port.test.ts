import { expect, it } from 'vitest';
import { freePort as scriptsFreePort } from '../../../scripts/processes';
import { freePort } from '../src/infra';

// The kernel's choice for port 0 repeats itself within a few dozen calls here: two services of one test
// system given one port, the second could not listen while the first answered its /readyz (an e2e test saw
// processor-gateway's URL answered by another service). Neither copy of freePort gives a port twice.
it('never hands out one port twice in a process, whichever copy is asked', async () => {
  const ports: number[] = [];
  for (let call = 0; call < 1_000; call += 1) ports.push(await (call % 2 ? freePort() : scriptsFreePort()));
  expect(new Set(ports).size).toBe(ports.length);
});
