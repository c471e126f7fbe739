import { once } from 'node:events';
import { createConnection, createServer, type Server, type Socket } from 'node:net';

/**
 * A TCP proxy on a loopback port in front of a real dependency (PostgreSQL, Redis), which
 * a test turns into the faults a network produces:
 * - `blackHole()`: connections are accepted and kept open, but nothing passes either way;
 *   the connections caught in it stay silent for good (their state is lost, as after a
 *   failover), so a client that keeps using one never gets an answer;
 * - `reset()`: every connection is cut, and each new one cut as soon as it is accepted (a
 *   database restarting, or a middlebox resetting connections);
 * - `restore()`: connections made from now on are forwarded again;
 * - `stop()`: the port is closed and every connection through it cut (connection refused);
 *   `start()` listens again on the same port.
 */
export interface TcpProxy {
  port: number;
  /** Connections accepted since the proxy was made. */
  accepted: number;
  blackHole(): void;
  reset(): void;
  restore(): void;
  stop(): Promise<void>;
  start(): Promise<void>;
  close(): Promise<void>;
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  let holed = false;
  let resetting = false;
  const pipes = new Set<{ dead: boolean; destroy(): void }>();
  let server: Server | undefined;

  const onConnection = (client: Socket) => {
    proxy.accepted++;
    if (resetting) {
      client.resetAndDestroy();
      return;
    }
    const upstream = createConnection(target);
    const pipe = {
      dead: holed,
      destroy() {
        client.destroy();
        upstream.destroy();
      },
    };
    const forward = (to: Socket) => (data: Buffer) => {
      if (!pipe.dead) to.write(data);
    };
    client.on('data', forward(upstream));
    upstream.on('data', forward(client));
    pipes.add(pipe);
    const end = () => {
      pipes.delete(pipe);
      pipe.destroy();
    };
    client.on('close', end).on('error', end);
    // In the hole, not even the dependency's closing reaches the client.
    const upstreamEnd = () => (pipe.dead ? upstream.destroy() : end());
    upstream.on('close', upstreamEnd).on('error', upstreamEnd);
  };

  const listen = async (port: number) => {
    server = createServer(onConnection);
    server.listen(port, '127.0.0.1');
    await once(server, 'listening');
    return (server.address() as { port: number }).port;
  };

  const proxy: TcpProxy = {
    port: 0,
    accepted: 0,
    blackHole() {
      holed = true;
      for (const p of pipes) p.dead = true;
    },
    reset() {
      resetting = true;
      for (const p of pipes) p.destroy();
      pipes.clear();
    },
    restore() {
      holed = false;
      resetting = false;
    },
    async stop() {
      const closed = new Promise((r) => server?.close(r));
      for (const p of pipes) p.destroy();
      pipes.clear();
      await closed;
      server = undefined;
    },
    async start() {
      holed = false;
      resetting = false;
      await listen(proxy.port);
    },
    async close() {
      if (server) await proxy.stop();
    },
  };
  proxy.port = await listen(0);
  return proxy;
}
