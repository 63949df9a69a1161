import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { installClock, systemClock } from '../../functions/ports/clock.ts';
import { listCapacity, setCapacityTotal } from '../../functions/store/capacity.ts';
import { routes } from '../routes.ts';
import { AdjustableClock } from './clock.ts';
import { type LocalCloud, type LocalCloudOptions, startLocalCloud } from './cloud.ts';
import { LocalApiGateway, loadAuthorizer, loadRouteHandlers } from './http-adapter.ts';
import { localRoutes } from './local-routes.ts';

/** API Gateway's own payload limit; the handlers enforce their much smaller one. */
const MAX_REQUEST_BYTES = 10 * 1024 * 1024;

const CAPACITY_SEED = path.join(path.dirname(fileURLToPath(import.meta.url)), 'capacity.json');

interface CapacitySeed {
  regions: { region: string; locations: { location: string; plans: Record<string, number> }[] }[];
}

/** Seeds the capacity inventory from capacity.json, only for regions that have none yet. */
export const seedCapacity = async (now: Date, seedFile = CAPACITY_SEED): Promise<void> => {
  const seed = JSON.parse(readFileSync(seedFile, 'utf8')) as CapacitySeed;
  for (const { region, locations } of seed.regions) {
    if ((await listCapacity(region)).length > 0) continue;
    for (const { location, plans } of locations) {
      for (const [plan, total] of Object.entries(plans)) {
        await setCapacityTotal({ region, location, plan: plan as 'standard', total }, now);
      }
    }
  }
};

export interface ControlPlaneOptions extends LocalCloudOptions {
  /** HTTP port of the API; 0 picks a free one. */
  port?: number;
  host?: string;
}

export interface RunningControlPlane {
  url: string;
  cloud: LocalCloud;
  clock: AdjustableClock;
  gateway: LocalApiGateway;
  stop(): Promise<void>;
}

const readBody = (request: IncomingMessage): Promise<Buffer | undefined> =>
  new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_REQUEST_BYTES) {
        resolve(undefined);
        request.destroy();
        return;
      }
      chunks.push(chunk);
    });
    request.on('end', () => resolve(Buffer.concat(chunks)));
    request.on('error', reject);
  });

const serve = (gateway: LocalApiGateway) => async (request: IncomingMessage, response: ServerResponse) => {
  const body = await readBody(request);
  if (body === undefined) {
    response
      .writeHead(413, { 'content-type': 'application/json' })
      .end('{"message":"Request Entity Too Large"}');
    return;
  }
  const result = await gateway.dispatch({
    method: request.method ?? 'GET',
    url: request.url ?? '/',
    headers: request.headers,
    body,
    sourceIp: request.socket.remoteAddress ?? '127.0.0.1',
  });
  const headers: Record<string, string | string[]> = { ...result.headers };
  if (result.cookies.length) headers['set-cookie'] = result.cookies;
  response.writeHead(result.status, headers).end(result.body);
};

/**
 * The whole control plane on one machine: the AWS stand-ins, the table, the capacity seed, the
 * adjustable clock, and every route of lib/routes.ts plus the local-only `/_local/` routes.
 */
export const startControlPlane = async (options: ControlPlaneOptions = {}): Promise<RunningControlPlane> => {
  const cloud = await startLocalCloud(options);
  Object.assign(process.env, cloud.environment);
  const clock = new AdjustableClock(
    () => systemClock.now().getTime(),
    options.dataDirectory ? path.join(options.dataDirectory, 'clock.json') : undefined,
  );
  installClock(clock);
  let server: Server | undefined;
  try {
    await seedCapacity(clock.now());
    const gateway = new LocalApiGateway(
      [...localRoutes(clock), ...(await loadRouteHandlers(routes))],
      await loadAuthorizer(),
    );
    const httpServer = createServer((request, response) => {
      serve(gateway)(request, response).catch((error: unknown) => {
        console.error('local gateway failed', error);
        if (!response.headersSent) response.writeHead(500).end('{"message":"Internal Server Error"}');
      });
    });
    server = httpServer;
    const host = options.host ?? '127.0.0.1';
    await new Promise<void>((resolve, reject) => {
      httpServer.once('error', reject);
      httpServer.listen(options.port ?? 3000, host, () => resolve());
    });
    const address = httpServer.address();
    const port = typeof address === 'object' && address ? address.port : options.port;
    return {
      url: `http://localhost:${port}`,
      cloud,
      clock,
      gateway,
      stop: async () => {
        await new Promise<void>((resolve) => {
          httpServer.closeAllConnections();
          httpServer.close(() => resolve());
        });
        await cloud.stop();
      },
    };
  } catch (error) {
    server?.close();
    await cloud.stop();
    throw error;
  }
};
