import { readFileSync, writeFileSync } from 'node:fs';
import {
  createServer,
  type IncomingMessage,
  type RequestListener,
  type Server,
  type ServerResponse,
} from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { resumeOpenPlanChanges } from '../../functions/plan-changes/resume.ts';
import { installClock, systemClock } from '../../functions/ports/clock.ts';
import { ENVIRONMENT } from '../../functions/ports/config.ts';
import { installLocalNudge } from '../../functions/ports/nudge.ts';
import { syncCatalog } from '../../functions/ports/processor/catalog.ts';
import { listInventory, setCapacityTotal } from '../../functions/store/capacity.ts';
import {
  CONSOLE_CACHE_CONTROL,
  CONSOLE_SECURITY_HEADERS,
  REFERENCE_SECURITY_HEADERS,
} from '../console-headers.ts';
import { REPO_ROOT } from '../constants.ts';
import { clockStateFile } from '../local-data.ts';
import { REFERENCE_FILES, REFERENCE_PATH } from '../reference-page.ts';
import { routes } from '../routes.ts';
import { AdjustableClock } from './clock.ts';
import { type LocalCloud, type LocalCloudOptions, startLocalCloud } from './cloud.ts';
import { codeHostEnvironment, type LocalCodeHost, startCodeHost } from './code-host.ts';
import { isExportDownload, serveExportDownload } from './exports.ts';
import { FaultBoard } from './faults.ts';
import { FleetSimulator } from './fleet.ts';
import {
  LocalApiGateway,
  loadAuthorizer,
  loadRouteHandlers,
  payloadTooLarge,
  readRequestBody,
} from './http-adapter.ts';
import { localRoutes } from './routes/index.ts';

/** How often the local simulated Dispatchers poll when the control plane runs on its own. */
const FLEET_POLL_SECONDS = 2;

import { armCrashPoints } from '../crash-points.ts';
import { MailArchive, mailFile } from './mail.ts';
import { closeServer, listenOn } from './ports.ts';
import type { ProcessorEmulator } from './processor/emulator.ts';
import { deliverWebhooksTo, processorEnvironment, startLocalProcessor } from './processor/local.ts';
import { LocalSweeper } from './sweeper.ts';

const CAPACITY_SEED = path.join(path.dirname(fileURLToPath(import.meta.url)), 'capacity.json');

interface CapacitySeed {
  regions: { region: string; locations: { location: string; plans: Record<string, number> }[] }[];
}

/** Seeds the capacity inventory from capacity.json, only for regions that have none yet. */
export const seedCapacity = async (now: Date, seedFile = CAPACITY_SEED): Promise<void> => {
  const seed = JSON.parse(readFileSync(seedFile, 'utf8')) as CapacitySeed;
  for (const { region, locations } of seed.regions) {
    if ((await listInventory(region)).slots.length > 0) continue;
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
  /** The schedule's interval (the cloud runs every minute); intake nudges a sweep at once anyway. */
  sweepEverySeconds?: number;
  /** `manual`: no ticker and no nudges; sweeps run only on `POST /_local/sweep`. */
  sweepMode?: 'auto' | 'manual';
  host?: string;
  /** Print one line for every sweep that changed something (`npm start` does). */
  logSweeps?: boolean;
  /**
   * An outside processor emulator (lib/local/processor/main.ts) to use instead of starting one in
   * this process: it outlives this process, as the processor does (the crash run). Its webhooks
   * are its own to deliver; `POST /_local/processor/checkout/{id}/pay` is then its own route.
   */
  processorUrl?: string;
}

/** The control plane with the processor emulator in this process (every test's and the bench's). */
export interface RunningControlPlane extends LocalControlPlane {
  processor: ProcessorEmulator;
}

/** The control plane as `npm start` runs it: the emulator in this process, or an outside one. */
export interface LocalControlPlane {
  url: string;
  /** The processor's API (the emulator in this process or the outside one). */
  processorUrl: string;
  cloud: LocalCloud;
  codeHost: LocalCodeHost;
  processor?: ProcessorEmulator;
  sweeper: LocalSweeper;
  clock: AdjustableClock;
  gateway: LocalApiGateway;
  /** The sent mail, kept in the data folder (`GET /_local/mail`). */
  mail: MailArchive;
  /** The reference Dispatchers (`/_local/fleet/...`); a bench drives its own by hand (`fleet.stop()` ends the ticker). */
  fleet: FleetSimulator;
  stop(): Promise<void>;
}

/** The tenant console's static files (lib/console), served as they are: plain ES modules and CSS. */
const CONSOLE_DIRECTORY = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'console');
const CONSOLE_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
};

/** The console's CSP (lib/console-headers.ts, shared with the cloud's distribution). */
export { CONSOLE_CSP } from '../console-headers.ts';

/**
 * The console file a GET asks for (`/` is its page, `/console/<name>` and `/console/<folder>/<name>`
 * its assets), if any. Names are lower-case words only: no dot but the extension's, so never `..`.
 */
const consoleFile = (pathname: string): string | undefined => {
  if (pathname === '/' || pathname === '/index.html') return 'index.html';
  const match = /^\/console\/((?:[a-z][a-z0-9-]*\/)?[a-z][a-z0-9-]*\.(?:js|css|svg))$/.exec(pathname);
  return match?.[1];
};

const serveConsole = (file: string, response: ServerResponse): boolean => {
  let content: Buffer;
  try {
    content = readFileSync(path.join(CONSOLE_DIRECTORY, file));
  } catch {
    return false;
  }
  response
    .writeHead(200, {
      'content-type': CONSOLE_TYPES[path.extname(file)] ?? 'application/octet-stream',
      ...CONSOLE_SECURITY_HEADERS,
      'cache-control': CONSOLE_CACHE_CONTROL,
    })
    .end(content);
  return true;
};

/** The API reference (/docs): lib/reference-page.ts's files, read where they are (the cloud deploys the same). */
const serveReference = (pathname: string, response: ServerResponse): boolean => {
  const found = REFERENCE_FILES[pathname === `${REFERENCE_PATH}/` ? REFERENCE_PATH : pathname];
  if (!found) return false;
  response
    .writeHead(200, {
      'content-type': found.type,
      ...REFERENCE_SECURITY_HEADERS,
      'cache-control': CONSOLE_CACHE_CONTROL,
    })
    .end(readFileSync(path.join(REPO_ROOT, found.file)));
  return true;
};

export const serve =
  (gateway: LocalApiGateway) => async (request: IncomingMessage, response: ServerResponse) => {
    const pathname = new URL(request.url ?? '/', 'http://localhost').pathname;
    const file = request.method === 'GET' ? consoleFile(pathname) : undefined;
    if (file && serveConsole(file, response)) return;
    if (request.method === 'GET' && serveReference(pathname, response)) return;
    // Export archives stream past the adapter (CloudFront's part in the cloud).
    if (isExportDownload(request)) return serveExportDownload(request, response);
    const body = await readRequestBody(request);
    const result =
      body === undefined
        ? payloadTooLarge()
        : await gateway.dispatch({
            method: request.method ?? 'GET',
            url: request.url ?? '/',
            headers: request.headers,
            body,
            sourceIp: request.socket.remoteAddress ?? '127.0.0.1',
          });
    const headers: Record<string, string | string[]> = { ...result.headers };
    if (result.cookies.length) headers['set-cookie'] = result.cookies;
    // An oversized body was read to its end (so the client reads this answer); the connection is
    // then closed, as API Gateway does not keep one that sent too much.
    if (body === undefined) {
      response.removeHeader('keep-alive');
      headers.connection = 'close';
    }
    response.writeHead(result.status, headers).end(result.body);
  };

/**
 * How long the local API keeps an idle keep-alive connection open. Far longer than any client keeps
 * one (Node's agent 5 s, undici 4 s or the hint below less 2 s): the client, not the server, ends
 * an idle connection, so no request is ever written onto a socket the server is closing (the
 * server's default, 5 s, equalled Node's agent's: under load, requests met a closed socket, "other
 * side closed" or ECONNRESET).
 */
export const KEEP_ALIVE_IDLE_MS = 65_000;
/** What the local API tells clients (`Keep-Alive: timeout=5`): reuse an idle connection for 5 s at most. */
export const KEEP_ALIVE_HINT = 'timeout=5';

/** The local API's HTTP server: `npm start`'s and the tests' (test/support/gateway.ts). */
export const createApiServer = (listener: RequestListener): Server => {
  const server = createServer((request, response) => {
    response.setHeader('keep-alive', KEEP_ALIVE_HINT);
    listener(request, response);
  });
  server.keepAliveTimeout = KEEP_ALIVE_IDLE_MS;
  // Node's advice: longer than keepAliveTimeout, so an idle connection is never cut by it.
  server.headersTimeout = KEEP_ALIVE_IDLE_MS + 1000;
  return server;
};

/** The API port is taken (or not ours to take): said in one line, with how to choose another. */
export class PortInUseError extends Error {
  readonly port: number;
  constructor(port: number, reason: 'in_use' | 'denied') {
    const other = port < 65535 ? port + 1 : 3000;
    super(
      reason === 'in_use'
        ? `Port ${port} is already in use (another npm start?): stop that, or choose another port with \`npm start -- --port ${other}\` or \`PORT=${other} npm start\` (--port 0 picks a free one).`
        : `Port ${port} cannot be used without more privileges: choose another port with \`npm start -- --port ${other}\` or \`PORT=${other} npm start\` (--port 0 picks a free one).`,
    );
    this.name = 'PortInUseError';
    this.port = port;
  }
}

/** Takes the API port first, before anything is started or written (a taken port leaves nothing behind). */
const takeApiPort = async (server: Server, port: number, host: string): Promise<number> => {
  try {
    return await listenOn(server, port, host);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE') throw new PortInUseError(port, 'in_use');
    if (code === 'EACCES') throw new PortInUseError(port, 'denied');
    throw error;
  }
};

/**
 * The whole control plane on one machine: the AWS stand-ins, the table, the capacity seed, the
 * adjustable clock, and every route of lib/routes.ts plus the local-only `/_local/` routes.
 * The API port is taken before anything else starts; until everything is ready it answers 503.
 */
export const startControlPlane = async (
  options: Omit<ControlPlaneOptions, 'processorUrl'> = {},
): Promise<RunningControlPlane> => {
  const plane = await startLocalControlPlane(options);
  const { processor } = plane;
  if (!processor) throw new Error('the processor emulator did not start');
  return { ...plane, processor };
};

/** `npm start`'s control plane: startControlPlane, or with `processorUrl` an outside emulator's. */
export const startLocalControlPlane = async (
  options: ControlPlaneOptions = {},
): Promise<LocalControlPlane> => {
  let gateway: LocalApiGateway | undefined;
  const httpServer = createApiServer((request, response) => {
    if (!gateway) {
      response
        .writeHead(503, { 'content-type': 'application/json', 'retry-after': '1' })
        .end('{"message":"The local control plane is starting; retry in a second."}');
      return;
    }
    serve(gateway)(request, response).catch((error: unknown) => {
      console.error('local gateway failed', error);
      if (!response.headersSent) response.writeHead(500).end('{"message":"Internal Server Error"}');
    });
  });
  const host = options.host ?? '127.0.0.1';
  const port = await takeApiPort(httpServer, options.port ?? 3000, host);
  const url = `http://localhost:${port}`;
  let cloud: LocalCloud;
  try {
    cloud = await startLocalCloud({
      ...options,
      // Each injected fault is logged (one line) where the sweeps are.
      faults:
        options.faults ??
        new FaultBoard(options.logSweeps ? { log: (line: string) => console.log(line) } : {}),
    });
  } catch (error) {
    await closeServer(httpServer);
    throw error;
  }
  const clock = new AdjustableClock(
    () => systemClock.now().getTime(),
    options.dataDirectory ? clockStateFile(options.dataDirectory) : undefined,
  );
  installClock(clock);
  const mail = new MailArchive(
    cloud.endpoints.ses,
    clock,
    options.dataDirectory ? mailFile(options.dataDirectory) : undefined,
  );
  let codeHost: LocalCodeHost | undefined;
  let processor: ProcessorEmulator | undefined;
  const sweeper = new LocalSweeper({
    afterMail: () => mail.sync(),
    ...(options.logSweeps ? { log: (line: string) => console.log(line) } : {}),
  });
  const stopAll = async () => {
    await sweeper.stop();
    await mail.sync().catch((error: unknown) => console.error('could not copy the sent mail', error));
    await Promise.all([cloud.stop(), codeHost?.stop(), processor?.stop()]);
  };
  const progress = options.progress ?? (() => undefined);
  try {
    let startedAt = performance.now();
    codeHost = await startCodeHost();
    progress('code host', `sign-in stand-in at ${codeHost.url}`, performance.now() - startedAt);
    startedAt = performance.now();
    if (options.processorUrl) {
      progress('processor', `outside Stripe emulator at ${options.processorUrl}`, 0);
    } else {
      processor = await startLocalProcessor(
        clock,
        options.dataDirectory ? path.join(options.dataDirectory, 'processor.json') : undefined,
      );
      progress('processor', `Stripe emulator at ${processor.url}`, performance.now() - startedAt);
    }
    const processorUrl = options.processorUrl ?? (processor as ProcessorEmulator).url;
    startedAt = performance.now();
    const board = cloud.faults;
    if (board) processor?.useFaultBoard(board);
    Object.assign(
      process.env,
      cloud.environment,
      codeHostEnvironment(codeHost),
      processorEnvironment(processorUrl),
    );
    // The crash run's named kill points, armed from the data folder (none without its file).
    if (options.dataDirectory) armCrashPoints(options.dataDirectory);
    process.env.STACK_DOMAIN ??= ENVIRONMENT.STACK_DOMAIN.localDefault;
    process.env.MAIL_FROM ??= ENVIRONMENT.MAIL_FROM.localDefault;
    process.env.SES_MAX_SEND_RATE ??= ENVIRONMENT.SES_MAX_SEND_RATE.localDefault;
    process.env.PLAN_CHANGE_GATES_READY ??= ENVIRONMENT.PLAN_CHANGE_GATES_READY.localDefault;
    installLocalNudge(options.sweepMode === 'manual' ? () => undefined : () => sweeper.nudge());
    await seedCapacity(clock.now());
    process.env.PUBLIC_API_URL = url;
    process.env.EXPORTS_DOWNLOAD_BASE_URL = `${url}/_local`;
    process.env.TENANT_APP_URL ??= `${url}/`;
    const fleet = new FleetSimulator(
      () => url,
      () => clock.now(),
      // The Stacks' journals and Thread repositories, beside the rest of the local state.
      options.dataDirectory ? { dataDirectory: path.join(options.dataDirectory, 'stacks') } : {},
    );
    const ready = new LocalApiGateway(
      [
        ...localRoutes(clock, sweeper, { processor, mail, fleet, faults: board }),
        ...(await loadRouteHandlers(routes)),
      ],
      await loadAuthorizer(),
    );
    await syncCatalog();
    progress(
      'api',
      `${routes.length} routes and the console at ${url}, Plans synced to the processor`,
      performance.now() - startedAt,
    );
    gateway = ready;
    // Only now does the webhook route answer: the events the emulator kept undelivered across a kill
    // go out at once (earlier, each met the 503 of a starting server and waited out a retry).
    if (processor) deliverWebhooksTo(processor, url);
    // The Step Functions stand-in keeps its executions in the data folder: the ones running when the
    // process stopped (or was killed) carry on from the last state they entered, as in the cloud.
    cloud.stepFunctions.resumeKept();
    // An open Plan Change the stand-in has no execution of (a data folder kept before executions
    // were, or none at all) is started from its record; one it resumed is a no-op start.
    await resumeOpenPlanChanges();
    if (options.sweepMode !== 'manual') {
      sweeper.startTicker(options.sweepEverySeconds ?? 60);
      // The simulated Dispatchers poll on their own, as real ones do (soon enough for a person).
      fleet.startTicker(FLEET_POLL_SECONDS);
    }
    if (options.dataDirectory) {
      writeFileSync(
        path.join(options.dataDirectory, 'endpoints.json'),
        JSON.stringify(
          { api: url, environment: { ...cloud.environment, ...processorEnvironment(processorUrl) } },
          null,
          2,
        ),
      );
    }
    return {
      url,
      processorUrl,
      codeHost,
      ...(processor ? { processor } : {}),
      sweeper,
      cloud,
      clock,
      gateway: ready,
      mail,
      fleet,
      stop: async () => {
        fleet.stop();
        await closeServer(httpServer);
        await stopAll();
      },
    };
  } catch (error) {
    await closeServer(httpServer);
    await stopAll();
    throw error;
  }
};
