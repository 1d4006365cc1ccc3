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
  /**
   * The next time a client sends bytes containing `marker` (within one read), those bytes are held back:
   * they never reach the server, and `act` is called with that connection, to cut it at that exact
   * moment of a protocol (a driver's first statement on a new connection, say).
   */
  onceClientSends(marker: string, act: (connection: ProxiedConnection) => void): void;
  close(): Promise<void>;
}

/** One client's connection through the proxy, as `onceClientSends` hands it over. */
export interface ProxiedConnection {
  /** Ends it with a TCP reset towards the client (which reads ECONNRESET), and closes the server's side. */
  reset(): void;
}

export async function tcpProxy(targetHost: string, targetPort: number): Promise<TcpProxy> {
  const sockets = new Set<net.Socket>();
  const watches: Array<{ marker: Buffer; act: (connection: ProxiedConnection) => void }> = [];
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
    const connection: ProxiedConnection = {
      reset() {
        client.resetAndDestroy();
        cleanup();
      },
    };
    client.on('data', (chunk: Buffer) => {
      const watch = watches.findIndex(({ marker }) => chunk.includes(marker));
      if (watch >= 0) {
        const [{ act }] = watches.splice(watch, 1) as [(typeof watches)[number]];
        act(connection);
        return;
      }
      // By hand rather than pipe(), to look at each chunk; the same back-pressure.
      if (!upstream.write(chunk)) {
        client.pause();
        upstream.once('drain', () => client.resume());
      }
    });
    client.on('end', () => upstream.end());
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
    onceClientSends(marker, act) {
      watches.push({ marker: Buffer.from(marker), act });
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
