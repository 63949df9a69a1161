import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import { parseArgs } from 'node:util';
import { ProcessorEmulator } from '../../lib/local/processor/emulator.ts';
import { LOCAL_WEBHOOK_SECRET } from '../../lib/local/processor/local.ts';
import {
  newDataDirectory,
  type Running,
  startLocalServer,
  stopLocalServer,
} from '../support/local-server.ts';

/**
 * `npm run test:load [-- --clients 100 --seconds 60 --tenants 10]`: concurrent clients against
 * `npm start` (started here on a free port with a fresh data folder) on the hot routes: billing
 * status and Plans with a session, Dispatcher desired-state polls answered 304 and heartbeats,
 * signed processor webhooks, and the console's files. Tenants that paid, with their Stacks and a
 * Dispatcher credential each, are seeded first.
 *
 * Half the clients use fetch (undici), half Node's http.Agent with keep-alive (its 5 s idle time);
 * now and then a client pauses for 3 to 7 s before its next request on the same connection, as a
 * person or a Dispatcher between polls does: a keep-alive connection is reused around the idle
 * times of both. The last line is exactly `load: C clients, R requests, E errors, p99 X ms`, where E
 * counts connection errors and 5xx answers; the run exits 1 when E > 0 (other unexpected statuses
 * are listed above it, per route).
 */

const USAGE =
  'Usage: npm run test:load -- [--clients <1 or more>] [--seconds <1 or more>] [--tenants <1 or more>]';
const { values } = parseArgs({
  options: {
    clients: { type: 'string', default: '100' },
    seconds: { type: 'string', default: '60' },
    tenants: { type: 'string', default: '10' },
    keep: { type: 'boolean', default: false },
  },
});
const CLIENTS = Number(values.clients);
const SECONDS = Number(values.seconds);
const TENANTS = Number(values.tenants);
if (![CLIENTS, SECONDS, TENANTS].every((n) => Number.isInteger(n) && n >= 1)) {
  console.error(USAGE);
  process.exit(2);
}
/** How often a client pauses (keeping its connection idle) before a request, and for how long. */
const PAUSE_SHARE = 0.02;
const PAUSE_MS = { min: 3000, max: 7000 };

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Answer {
  status: number;
  headers: Record<string, string>;
  text: string;
}
interface Request {
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: string;
}

/** One client's way of sending: fetch (undici's pool) or node:http with its own keep-alive agent. */
type Send = (request: Request) => Promise<Answer>;

const viaFetch =
  (base: string): Send =>
  async ({ method, path, headers, body }) => {
    const response = await fetch(`${base}${path}`, {
      method,
      ...(headers ? { headers } : {}),
      ...(body === undefined ? {} : { body }),
    });
    return {
      status: response.status,
      headers: Object.fromEntries(response.headers),
      text: await response.text(),
    };
  };

const viaNodeHttp = (base: string): Send => {
  // Node's own defaults for a keep-alive agent: it keeps an idle socket for 5 s.
  const agent = new HttpAgent({ keepAlive: true, maxSockets: 1 });
  const url = new URL(base);
  return ({ method, path, headers, body }) =>
    new Promise((resolve, reject) => {
      const request = httpRequest(
        { host: url.hostname, port: url.port, method, path, agent, headers: { ...headers } },
        (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('end', () =>
            resolve({
              status: response.statusCode ?? 0,
              headers: Object.fromEntries(
                Object.entries(response.headers).map(([name, value]) => [name, String(value)]),
              ),
              text: Buffer.concat(chunks).toString('utf8'),
            }),
          );
          response.on('error', reject);
        },
      );
      request.on('error', reject);
      request.end(body);
    });
};

// ---------------------------------------------------------------------------------------------
// Seeding: paying tenants, their Stacks, a Dispatcher credential each.

interface Seeded {
  login: string;
  token: string;
  stackId: string;
  credential: string;
  /** The desired state's ETag, for 304 polls. */
  etag: string;
  heartbeat: string;
  /** The tenant's subscription as the processor renders it (webhook events carry it). */
  subscription: unknown;
}

const seed = async (base: string, processorApi: { url: string; key: string }): Promise<Seeded[]> => {
  const send = viaFetch(base);
  const json = async (request: Request, expected: number) => {
    const once = () =>
      send({
        ...request,
        headers: { ...(request.body ? { 'content-type': 'application/json' } : {}), ...request.headers },
      });
    let answer = await once();
    // "Try again" answers, and on a very busy machine a handler out of its 10 s (500): seeding is
    // not what is measured, so it tries again as a patient client would.
    for (let attempt = 1; (answer.status === 429 || answer.status >= 500) && attempt < 5; attempt++) {
      await sleep(1000 * attempt);
      answer = await once();
    }
    if (answer.status !== expected)
      throw new Error(`seeding: ${request.method} ${request.path} answered ${answer.status}: ${answer.text}`);
    return JSON.parse(answer.text || '{}');
  };
  const tenants: { login: string; token: string }[] = [];
  for (let i = 0; i < TENANTS; i++) {
    const login = `load-${randomBytes(3).toString('hex')}`;
    const { sessionToken } = await json(
      { method: 'POST', path: '/_local/sign-in', body: JSON.stringify({ login }) },
      200,
    );
    const auth = { authorization: `Bearer ${sessionToken}` };
    await json(
      { method: 'POST', path: '/v1/tenant/slug', headers: auth, body: JSON.stringify({ slug: login }) },
      200,
    );
    const checkout = await json(
      {
        method: 'POST',
        path: '/v1/billing/checkout',
        headers: auth,
        body: JSON.stringify({ plan: 'standard' }),
      },
      200,
    );
    const sessionId = new URL(checkout.url).pathname.split('/').at(-1);
    await json(
      {
        method: 'POST',
        path: `/_local/processor/checkout/${sessionId}/pay`,
        body: JSON.stringify({ card: '4242424242424242' }),
      },
      200,
    );
    tenants.push({ login, token: sessionToken });
  }
  const seeded: Seeded[] = [];
  for (const tenant of tenants) {
    const auth = { authorization: `Bearer ${tenant.token}` };
    let stackId: string | undefined;
    for (let attempt = 0; attempt < 60 && !stackId; attempt++) {
      await json({ method: 'POST', path: '/_local/sweep' }, 200);
      stackId = (await json({ method: 'GET', path: '/v1/stacks', headers: auth }, 200)).stacks?.[0]?.stackId;
      if (!stackId) await sleep(500);
    }
    if (!stackId) throw new Error(`seeding: ${tenant.login} has no Stack after its checkout`);
    const { credential } = await json(
      { method: 'POST', path: `/v1/stacks/${stackId}/dispatcher-credential`, headers: auth },
      201,
    );
    const dispatcher = { authorization: `Bearer ${credential}` };
    const read = await send({ method: 'GET', path: '/v1/dispatcher/desired-state', headers: dispatcher });
    if (read.status !== 200 || !read.headers.etag)
      throw new Error(`seeding: the desired state answered ${read.status} ${read.text}`);
    const desired = JSON.parse(read.text) as { version: number };
    const heartbeat = JSON.stringify({ appliedVersion: desired.version, health: 'healthy', activeRuns: 0 });
    await json(
      { method: 'PUT', path: '/v1/dispatcher/observed-state', headers: dispatcher, body: heartbeat },
      200,
    );
    // The report may move the desired state on (a new version): the ETag is read after it.
    const again = await send({ method: 'GET', path: '/v1/dispatcher/desired-state', headers: dispatcher });
    seeded.push({
      ...tenant,
      stackId,
      credential,
      etag: again.headers.etag ?? read.headers.etag,
      heartbeat,
      subscription: undefined,
    });
  }
  const listed = await fetch(`${processorApi.url}/v1/subscriptions?status=all&limit=100`, {
    headers: { authorization: `Bearer ${processorApi.key}` },
  });
  const subscriptions = ((await listed.json()) as { data: { metadata: { tenantId?: string } }[] }).data;
  seeded.forEach((tenant, i) => {
    tenant.subscription = subscriptions[i % subscriptions.length];
  });
  return seeded;
};

// ---------------------------------------------------------------------------------------------
// The load.

interface RouteFigures {
  requests: number;
  errors: number;
  statuses: Map<number, number>;
  unexpected: number;
  latencies: number[];
}

const CONSOLE_FILES = [
  '/',
  '/console/app.js',
  '/console/api.js',
  '/console/console.css',
  '/console/screens/plans.js',
];

/** The hot routes, each with the request a client sends and the status it expects. */
const hotRoutes = (tenants: Seeded[]) => {
  let eventSequence = 0;
  const pick = () => tenants[Math.floor(Math.random() * tenants.length)] as Seeded;
  /** A tenant's read of `path` with its session, answered 200. */
  const tenantRead = (path: string, weight: number) => ({
    name: `GET ${path}`,
    weight,
    expect: [200],
    make: (): Request => ({ method: 'GET', path, headers: { authorization: `Bearer ${pick().token}` } }),
  });
  /** A picked tenant's Dispatcher's request, with its credential and what `more` adds for it. */
  const dispatcherRequest =
    (
      method: string,
      path: string,
      more: (tenant: Seeded) => { headers: Record<string, string>; body?: string },
    ) =>
    (): Request => {
      const tenant = pick();
      const { headers, ...rest } = more(tenant);
      return { method, path, headers: { authorization: `Bearer ${tenant.credential}`, ...headers }, ...rest };
    };
  return [
    tenantRead('/v1/billing/status', 3),
    tenantRead('/v1/billing/plans', 2),
    {
      name: 'GET /v1/dispatcher/desired-state (304)',
      weight: 4,
      expect: [304],
      make: dispatcherRequest('GET', '/v1/dispatcher/desired-state', (tenant) => ({
        headers: { 'if-none-match': tenant.etag },
      })),
    },
    {
      name: 'PUT /v1/dispatcher/observed-state (heartbeat)',
      weight: 1,
      expect: [200],
      make: dispatcherRequest('PUT', '/v1/dispatcher/observed-state', (tenant) => ({
        headers: { 'content-type': 'application/json' },
        body: tenant.heartbeat,
      })),
    },
    {
      name: 'POST /v1/webhooks/processor (signed)',
      weight: 1,
      expect: [200],
      make: (): Request => {
        const payload = JSON.stringify({
          id: `evt_load_${process.pid}_${(eventSequence++).toString(36)}`,
          object: 'event',
          api_version: '2026-10-28.endive',
          created: Math.floor(Date.now() / 1000),
          data: { object: pick().subscription },
          livemode: false,
          pending_webhooks: 1,
          request: { id: null, idempotency_key: null },
          type: 'customer.subscription.updated',
        });
        return {
          method: 'POST',
          path: '/v1/webhooks/processor',
          headers: {
            'content-type': 'application/json',
            'stripe-signature': ProcessorEmulator.signature(
              payload,
              LOCAL_WEBHOOK_SECRET,
              Math.floor(Date.now() / 1000),
            ),
          },
          body: payload,
        };
      },
    },
    {
      name: 'GET console files',
      weight: 2,
      expect: [200],
      make: (): Request => ({
        method: 'GET',
        path: CONSOLE_FILES[Math.floor(Math.random() * CONSOLE_FILES.length)] as string,
      }),
    },
  ];
};

const percentile = (sorted: number[], p: number) =>
  sorted.length === 0
    ? 0
    : (sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0);

const load = async (base: string, tenants: Seeded[]) => {
  const routes = hotRoutes(tenants);
  const figures = new Map<string, RouteFigures>(
    routes.map((r) => [
      r.name,
      { requests: 0, errors: 0, statuses: new Map(), unexpected: 0, latencies: [] },
    ]),
  );
  const errorSamples: string[] = [];
  const totalWeight = routes.reduce((sum, r) => sum + r.weight, 0);
  const chooseRoute = () => {
    let at = Math.random() * totalWeight;
    for (const route of routes) {
      at -= route.weight;
      if (at < 0) return route;
    }
    return routes[0] as (typeof routes)[number];
  };
  const endAt = performance.now() + SECONDS * 1000;
  const client = async (index: number) => {
    const send = index % 2 === 0 ? viaFetch(base) : viaNodeHttp(base);
    while (performance.now() < endAt) {
      if (Math.random() < PAUSE_SHARE) {
        const pause = PAUSE_MS.min + Math.random() * (PAUSE_MS.max - PAUSE_MS.min);
        if (performance.now() + pause >= endAt) break;
        await sleep(pause);
      }
      const route = chooseRoute();
      const figure = figures.get(route.name) as RouteFigures;
      const started = performance.now();
      try {
        const answer = await send(route.make());
        figure.latencies.push(performance.now() - started);
        figure.statuses.set(answer.status, (figure.statuses.get(answer.status) ?? 0) + 1);
        if (answer.status >= 500) {
          figure.errors++;
          if (errorSamples.length < 10)
            errorSamples.push(`${route.name}: ${answer.status} ${answer.text.slice(0, 200)}`);
        } else if (!route.expect.includes(answer.status)) figure.unexpected++;
      } catch (error) {
        figure.errors++;
        const cause = (error as { cause?: { code?: string; message?: string } }).cause;
        if (errorSamples.length < 10)
          errorSamples.push(
            `${route.name}: ${(error as Error).message}${cause ? ` (${cause.code ?? ''} ${cause.message ?? ''})` : ''}`,
          );
      } finally {
        figure.requests++;
      }
    }
  };
  await Promise.all(Array.from({ length: CLIENTS }, (_, i) => client(i)));
  return { figures, errorSamples };
};

// ---------------------------------------------------------------------------------------------

const dataDirectory = newDataDirectory();
let server: Running | undefined;
let exitCode = 1;
try {
  console.log(`Starting npm start on a free port, data in ${dataDirectory}...`);
  // On a busy shared machine DynamoDB Local alone may take more than the minute `npm start` gives
  // it: a start that failed before it was ready is tried again (at most six times in all).
  for (let attempt = 1; !server; attempt++) {
    try {
      server = await startLocalServer(dataDirectory, [], {
        environment: { POWERTOOLS_LOG_LEVEL: 'ERROR' },
        readyWithinMs: 300_000,
      });
    } catch (error) {
      if (attempt >= 6) throw error;
      console.log(`npm start did not come up (${(error as Error).message.split('\n')[0]}); again...`);
    }
  }
  const environment = server.environment();
  const processorApi = { url: environment.PROCESSOR_API_URL ?? '', key: environment.PROCESSOR_API_KEY ?? '' };
  console.log(
    `Seeding ${TENANTS} paying tenants, their Stacks and Dispatcher credentials at ${server.url}...`,
  );
  const tenants = await seed(server.url, processorApi);
  console.log(`Load: ${CLIENTS} clients for ${SECONDS} s...`);
  const { figures, errorSamples } = await load(server.url, tenants);
  let requests = 0;
  let errors = 0;
  const all: number[] = [];
  for (const [name, figure] of figures) {
    requests += figure.requests;
    errors += figure.errors;
    all.push(...figure.latencies);
    const sorted = figure.latencies.sort((a, b) => a - b);
    const statuses = [...figure.statuses].map(([status, n]) => `${status}x${n}`).join(' ');
    console.log(
      `  ${name.padEnd(46)} ${String(figure.requests).padStart(7)} requests, ${figure.errors} errors, ${figure.unexpected} unexpected, p50 ${percentile(sorted, 50).toFixed(0)} ms, p99 ${percentile(sorted, 99).toFixed(0)} ms  [${statuses}]`,
    );
  }
  for (const sample of errorSamples) console.log(`  error: ${sample}`);
  if (errorSamples.length > 0) {
    // What the server said about them (it logs errors only): the last such lines.
    const said = server
      .output()
      .split('\n')
      .filter((line) => /error|fail/i.test(line));
    for (const line of said.slice(-15)) console.log(`  server: ${line.slice(0, 1500)}`);
  }
  const p99 = percentile(
    all.sort((a, b) => a - b),
    99,
  );
  exitCode = errors === 0 ? 0 : 1;
  console.log(`load: ${CLIENTS} clients, ${requests} requests, ${errors} errors, p99 ${Math.round(p99)} ms`);
} catch (error) {
  console.error(error instanceof Error ? error.message : error);
  if (server) console.error(server.output().slice(-4000));
} finally {
  if (server) await stopLocalServer(server);
  if (!values.keep) rmSync(dataDirectory, { recursive: true, force: true });
}
process.exit(exitCode);
