import net from 'node:net';

/**
 * A TCP load balancer for tests, what a deployment puts in front of a service's replicas: each connection
 * goes to the next backend in turn; a backend that refuses the connection (a replica restarting) is skipped
 * for the next one, and when every backend refuses, it tries again for a few seconds before giving up. A
 * connection stays with its backend until either side closes it (HTTP keep-alive).
 */
export interface Balancer {
  port: number;
  url: string;
  setBackends(ports: number[]): void;
  /** Connections that found no backend within the wait and were closed. */
  readonly refused: number;
  stop(): Promise<void>;
}

export async function startBalancer(): Promise<Balancer> {
  let backends: number[] = [];
  let turn = 0;
  let refused = 0;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    client.on('error', () => undefined);
    client.pause();
    const deadline = Date.now() + 5_000;
    const attempt = (failedInRound: number) => {
      if (client.destroyed) return;
      if (backends.length === 0 || failedInRound >= backends.length) {
        if (Date.now() > deadline) {
          refused += 1;
          client.destroy();
          return;
        }
        setTimeout(() => attempt(0), 100);
        return;
      }
      const port = backends[turn++ % backends.length] as number;
      const upstream = net.connect(port, '127.0.0.1');
      upstream.once('error', () => attempt(failedInRound + 1));
      upstream.once('connect', () => {
        upstream.removeAllListeners('error');
        upstream.on('error', () => client.destroy());
        upstream.on('close', () => client.destroy());
        client.on('close', () => upstream.destroy());
        sockets.add(upstream);
        upstream.on('close', () => sockets.delete(upstream));
        client.pipe(upstream);
        upstream.pipe(client);
        client.resume();
      });
    };
    attempt(0);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    setBackends(ports) {
      backends = [...ports];
    },
    get refused() {
      return refused;
    },
    stop: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
