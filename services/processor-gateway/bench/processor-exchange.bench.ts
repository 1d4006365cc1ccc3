/**
 * The client-side CPU of one processor exchange, by transport: global `fetch` (undici) against the
 * node:http keep-alive transport of `processor-http.ts`. A node:http server in another process answers a
 * small JSON body; this process makes EXCHANGES sequential POSTs with a small JSON body per run and prints
 * its own CPU (user + system, `process.cpuUsage`) per exchange. Runs alternate, fetch first, ROUNDS times.
 *
 *   npx tsx services/processor-gateway/bench/processor-exchange.bench.ts [exchanges=5000] [rounds=2]
 */
import { fork } from 'node:child_process';
import http from 'node:http';
import { createProcessorHttp } from '../src/adapters/processors/processor-http';

const EXCHANGES = Number(process.argv[2] ?? 5_000);
const ROUNDS = Number(process.argv[3] ?? 2);
const WARM_UP = 300;

function serve() {
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const text = JSON.stringify({
        status: 'success',
        confirmation: { response_code: '00', length: chunks.length },
      });
      response.writeHead(200, {
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(text),
      });
      response.end(text);
    });
  });
  server.keepAliveTimeout = 5_000;
  server.listen(0, '127.0.0.1', () => {
    const address = server.address();
    process.send?.(typeof address === 'object' && address ? address.port : 0);
  });
}

async function measure() {
  const child = fork(__filename, [], {
    env: { ...process.env, PROCESSOR_BENCH_SERVER: '1' },
    execArgv: process.execArgv,
  });
  const port = await new Promise<number>((resolve) => child.once('message', (m) => resolve(Number(m))));
  const baseUrl = `http://127.0.0.1:${port}/vpos`;
  const body = {
    public_key: 'pk',
    operation: { token: 'a'.repeat(32), shop_process_id: 123456789012345, amount: '150000.00' },
  };

  async function run(name: 'fetch' | 'node:http') {
    const exchange = createProcessorHttp({
      baseUrl,
      timeoutMs: 20_000,
      ...(name === 'fetch' ? { fetch: globalThis.fetch } : {}),
    });
    for (let i = 0; i < WARM_UP; i++) await exchange('POST', 'api/0.3/charge', body);
    const started = performance.now();
    const before = process.cpuUsage();
    for (let i = 0; i < EXCHANGES; i++) {
      const outcome = await exchange('POST', 'api/0.3/charge', body);
      if (outcome.kind !== 'answered') throw new Error(`${name}: ${JSON.stringify(outcome)}`);
    }
    const cpu = process.cpuUsage(before);
    const wall = performance.now() - started;
    const perExchange = (cpu.user + cpu.system) / EXCHANGES;
    console.log(
      `${name.padEnd(9)} ${perExchange.toFixed(1).padStart(6)} µs CPU/exchange (user ${(cpu.user / EXCHANGES).toFixed(1)}, system ${(cpu.system / EXCHANGES).toFixed(1)}), ${((wall * 1000) / EXCHANGES).toFixed(1)} µs wall`,
    );
    return perExchange;
  }

  const results: Record<string, number[]> = { fetch: [], 'node:http': [] };
  for (let round = 0; round < ROUNDS; round++) {
    results.fetch?.push(await run('fetch'));
    results['node:http']?.push(await run('node:http'));
  }
  const mean = (values: number[] = []) => values.reduce((a, b) => a + b, 0) / values.length;
  console.log(
    `node:http / fetch = ${(mean(results['node:http']) / mean(results.fetch)).toFixed(2)} (${EXCHANGES} exchanges x ${ROUNDS} rounds)`,
  );
  child.kill();
}

if (process.env.PROCESSOR_BENCH_SERVER) serve();
else void measure();
