/**
 * undici's connection pool alone (`undici/lib/dispatcher/pool.js`, whose `module.exports` is the `Pool`
 * class): the package's entry point loads all of undici (fetch, WebSocket, caches), about 10 MB more of a
 * service's memory than the pool. Its types are the package's own.
 */
declare module 'undici/lib/dispatcher/pool.js' {
  import { Pool } from 'undici';
  export default Pool;
}
