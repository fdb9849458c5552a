import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Express } from 'express';

export interface ServedApp {
  port: number;
  /** `http://127.0.0.1:<port>` without a trailing slash. */
  origin: string;
  /** Also drops idle keep-alive sockets, which would otherwise hold close() until they time out. */
  close(): Promise<void>;
}

/** Serves `app` on a free loopback port. */
export async function serveApp(app: Express): Promise<ServedApp> {
  const server = await new Promise<Server>((resolve, reject) => {
    const s = app.listen(0, '127.0.0.1');
    s.once('listening', () => resolve(s));
    s.once('error', reject);
  });
  const { port } = server.address() as AddressInfo;
  return {
    port,
    origin: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
