import net from 'node:net';

/**
 * A TCP proxy on loopback for tests that must cut a live connection (a broker "restart" as the
 * client sees it) without touching the real server.
 */
export interface TcpProxy {
  port: number;
  /** Destroys every open connection; new connections are still accepted. */
  cutConnections(): void;
  /** Refuses new connections until `resume()`. */
  pause(): void;
  resume(): void;
  close(): Promise<void>;
}

export async function tcpProxy(targetHost: string, targetPort: number): Promise<TcpProxy> {
  const sockets = new Set<net.Socket>();
  let paused = false;
  const server = net.createServer((client) => {
    if (paused) {
      client.destroy();
      return;
    }
    const upstream = net.connect({ host: targetHost, port: targetPort });
    sockets.add(client);
    sockets.add(upstream);
    const cleanup = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('error', cleanup).on('close', cleanup);
    upstream.on('error', cleanup).on('close', cleanup);
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address() as net.AddressInfo;
  return {
    port: address.port,
    cutConnections() {
      for (const socket of sockets) socket.destroy();
      sockets.clear();
    },
    pause() {
      paused = true;
    },
    resume() {
      paused = false;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
