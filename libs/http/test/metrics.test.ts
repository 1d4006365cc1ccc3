import { spawnSync } from 'node:child_process';
import { createLogger } from '@payrail/observability';
import { describe, expect, it } from 'vitest';
import { createApp, problems } from '../src/index';

const logger = createLogger('test', 'silent');
const promtool = spawnSync('promtool', ['--version']).status === 0;

/** The value of one series in a Prometheus text scrape (undefined when absent). */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('/metrics', () => {
  it('counts requests by matched route and status, times them, and shows the event-loop lag', async () => {
    const { app } = createApp({ service: 'metrics-test', logger, errors: {} });
    app.get('/things/:id', (c) => c.json({ id: c.req.param('id') }));
    app.get('/refused', () => {
      throw problems.conflict('NOPE', 'refused');
    });
    for (const id of ['1', '2', '3']) expect((await app.request(`/things/${id}`)).status).toBe(200);
    expect((await app.request('/refused')).status).toBe(409);

    const response = await app.request('/metrics');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/plain');
    const text = await response.text();
    // One series for the route pattern, not one per id.
    expect(
      sample(
        text,
        'payrail_http_requests_total{service="metrics-test",method="GET",route="/things/:id",status="200"}',
      ),
    ).toBe(3);
    expect(text).not.toContain('route="/things/1"');
    expect(
      sample(
        text,
        'payrail_http_requests_total{service="metrics-test",method="GET",route="/refused",status="409"}',
      ),
    ).toBe(1);
    expect(
      sample(
        text,
        'payrail_http_request_duration_seconds_count{service="metrics-test",method="GET",route="/things/:id"}',
      ),
    ).toBe(3);
    expect(text).toMatch(/^nodejs_eventloop_lag_seconds \d/m);
    expect(text).toMatch(/^process_resident_memory_bytes \d/m);
  });

  it.skipIf(!promtool)('is accepted by promtool check metrics', async () => {
    const { app } = createApp({ service: 'metrics-lint', logger, errors: {} });
    await app.request('/healthz');
    const text = await (await app.request('/metrics')).text();
    const checked = spawnSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' });
    expect(checked.stderr + checked.stdout).toBe('');
    expect(checked.status).toBe(0);
  });
});
