import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { apiOperations } from '@payrail/contracts';
import { Hono } from 'hono';
import { buildOpenApiDocument } from './openapi';

/** The Swagger UI files ship in the `swagger-ui-dist` package: `/docs` works without any network. */
const ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
};

const PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Payment-link API reference</title>
  <link rel="stylesheet" href="/docs/swagger-ui.css">
</head>
<body>
  <div id="api-reference"></div>
  <script src="/docs/swagger-ui-bundle.js"></script>
  <script src="/docs/init.js"></script>
</body>
</html>
`;

const INIT = `window.ui = SwaggerUIBundle({
  url: '/openapi.json',
  dom_id: '#api-reference',
  deepLinking: true,
  presets: [SwaggerUIBundle.presets.apis],
  layout: 'BaseLayout',
});
`;

function assetsFolder(): string {
  const requireHere = createRequire(path.join(__dirname, 'docs.ts'));
  return path.dirname(requireHere.resolve('swagger-ui-dist/package.json'));
}

/** The OpenAPI document `/openapi.json` serves (also written to a file by `npm run lint:openapi`). */
export function openApiDocument() {
  return buildOpenApiDocument(apiOperations);
}

/**
 * `/openapi.json` and `/docs`: public, no token needed to read the reference. The document is built on
 * the first request for it, not at start (converting every schema costs the gateway about a second of
 * start-up and keeps megabytes nobody may read).
 */
export function docsRoutes() {
  let document: ReturnType<typeof openApiDocument> | undefined;
  const cache = new Map<string, string>();
  const routes = new Hono();

  routes.get('/openapi.json', (c) => {
    document ??= openApiDocument();
    return c.json(document);
  });
  routes.get('/docs', (c) => c.html(PAGE));
  routes.get('/docs/init.js', (c) => c.body(INIT, 200, { 'content-type': 'text/javascript; charset=utf-8' }));
  routes.get('/docs/:asset', (c) => {
    const asset = c.req.param('asset');
    const contentType = ASSETS[asset];
    if (!contentType) return c.notFound();
    let content = cache.get(asset);
    if (content === undefined) {
      content = readFileSync(path.join(assetsFolder(), asset), 'utf8');
      cache.set(asset, content);
    }
    return c.body(content, 200, { 'content-type': contentType, 'cache-control': 'public, max-age=3600' });
  });
  return routes;
}
