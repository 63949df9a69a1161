import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import { DeleteMessageCommand, ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { PLAN_VALUES, type PlanValue } from '../../functions/core/plans.ts';
import { installClock } from '../../functions/ports/clock.ts';
import { installLocalNudge } from '../../functions/ports/nudge.ts';
import { syncCatalog } from '../../functions/ports/processor/catalog.ts';
import { setCapacityTotal } from '../../functions/store/capacity.ts';
import { db, tableName } from '../../functions/store/client.ts';
import { keys } from '../../functions/store/keys.ts';
import { AdjustableClock } from '../../lib/local/clock.ts';
import { createProcessorQueues, LOCAL_REGION } from '../../lib/local/cloud.ts';
import { FleetSimulator } from '../../lib/local/fleet.ts';
import {
  type AdapterRoute,
  type AuthorizerHandler,
  LocalApiGateway,
  loadAuthorizer,
  loadRouteHandlers,
} from '../../lib/local/http-adapter.ts';
import { closeServer, listenOn } from '../../lib/local/ports.ts';
import type { ProcessorEmulator } from '../../lib/local/processor/emulator.ts';
import {
  deliverWebhooksTo,
  processorEnvironment,
  startLocalProcessor,
} from '../../lib/local/processor/local.ts';
import { localRoutes } from '../../lib/local/routes/index.ts';
import { createApiServer, serve } from '../../lib/local/server.ts';
import { type LocalStepFunctionsOptions, startLocalStepFunctions } from '../../lib/local/stepfunctions.ts';
import { LocalSweeper } from '../../lib/local/sweeper.ts';
import { routes } from '../../lib/routes.ts';
import { payOnCheckout, TEST_CARDS } from './hosted-pages.ts';
import { answerDisagreements } from './openapi-schema.ts';

export interface CallOptions {
  token?: string;
  cookie?: string;
  body?: unknown;
  /** Sent as is, not JSON-encoded. */
  rawBody?: string | Buffer;
  headers?: Record<string, string>;
}

export interface CallResult {
  status: number;
  headers: Record<string, string>;
  cookies: string[];
  // biome-ignore lint/suspicious/noExplicitAny: tests read response JSON freely
  json: any;
}

/** A login no other test uses, so tests sharing DynamoDB Local never meet. */
export const uniqueLogin = (prefix = 'user') => `${prefix}-${Math.random().toString(36).slice(2, 10)}`;
export const uniqueSlug = (prefix = 'acme') => `${prefix}-${Math.random().toString(36).slice(2, 10)}`;

/**
 * The control plane in this test process: every route of lib/routes.ts and the `/_local/`
 * routes through the local API Gateway (the same authorizer, events and handlers as Lambda),
 * against DynamoDB Local and the SQS stand-in of the global setup. With `processor`, also the
 * processor emulator on this file's clock, a queue of this file's own, and an HTTP listener so
 * that signed webhooks really arrive.
 */
export const testGateway = async (
  options: {
    processor?: boolean;
    visibilityTimeoutSeconds?: number;
    /** The Plan Change workflow's stand-in (handler overrides, wait ms, ...). */
    stepFunctions?: Omit<LocalStepFunctionsOptions, 'region'>;
    /**
     * The routes and authorizer instead of the handlers' modules (the bundle test serves them from
     * the Lambda bundles of the synthesized assembly).
     */
    api?: { routes: AdapterRoute[]; authorizer: AuthorizerHandler };
  } = {},
) => {
  const clock = new AdjustableClock();
  installClock(clock);
  // The Plan Change workflow runs in this process, so its tasks see this clock (the global
  // setup's stand-in runs in vitest's main process, which has neither).
  const stepFunctions = await startLocalStepFunctions({
    region: process.env.AWS_REGION ?? LOCAL_REGION,
    ...options.stepFunctions,
  });
  process.env.AWS_ENDPOINT_URL_SFN = stepFunctions.endpoint;
  process.env.PLAN_CHANGE_STATE_MACHINE_ARN = stepFunctions.stateMachineArn;
  let emulator: ProcessorEmulator | undefined;
  let queueUrl: string | undefined;
  if (options.processor) {
    const queues = await createProcessorQueues(
      process.env.AWS_ENDPOINT_URL_SQS ?? '',
      `events-${randomUUID().slice(0, 8)}`,
      options.visibilityTimeoutSeconds,
    );
    queueUrl = queues.events;
    process.env.PROCESSOR_EVENTS_DLQ_URL = queues.deadLetters;
    process.env.PROCESSOR_EVENTS_QUEUE_URL = queueUrl;
    emulator = await startLocalProcessor(clock);
    Object.assign(process.env, processorEnvironment(emulator.url));
    await syncCatalog();
  }
  // Tests sweep when they say so (api.sweep()); intake's nudges do nothing here.
  // No time budget: what a test's sweep gets done never depends on how fast the machine is.
  const sweeper = new LocalSweeper({ budgetMs: Number.POSITIVE_INFINITY });
  installLocalNudge(() => undefined);
  let apiBase = '';
  // The reference Dispatchers; tests poll them by hand (POST /_local/fleet/tick).
  const fleet = new FleetSimulator(
    () => apiBase,
    () => clock.now(),
  );
  const gateway = new LocalApiGateway(
    [
      ...localRoutes(clock, sweeper, { fleet }),
      ...(options.api?.routes ?? (await loadRouteHandlers(routes))),
    ],
    options.api?.authorizer ?? (await loadAuthorizer()),
  );
  const server: Server = createApiServer((request, response) => void serve(gateway)(request, response));
  const apiUrl = `http://127.0.0.1:${await listenOn(server, 0, '127.0.0.1')}`;
  apiBase = apiUrl;
  if (emulator) deliverWebhooksTo(emulator, apiUrl);

  const call = async (method: string, url: string, callOptions: CallOptions = {}): Promise<CallResult> => {
    const headers: Record<string, string> = { ...callOptions.headers };
    if (callOptions.token) headers.authorization = `Bearer ${callOptions.token}`;
    if (callOptions.cookie) headers.cookie = callOptions.cookie;
    let body = Buffer.alloc(0);
    if (callOptions.rawBody !== undefined) body = Buffer.from(callOptions.rawBody);
    else if (callOptions.body !== undefined) body = Buffer.from(JSON.stringify(callOptions.body));
    if (body.length && !headers['content-type']) headers['content-type'] = 'application/json';
    const response = await gateway.dispatch({ method, url, headers, body });
    const text = response.body.toString('utf8');
    const isJson = (response.headers['content-type'] ?? '').startsWith('application/json');
    const result = {
      status: response.status,
      headers: response.headers,
      cookies: response.cookies,
      json: text ? JSON.parse(text) : undefined,
    };
    // Every answer a test receives is held to docs/api/openapi.json: its route documents the
    // status, and the body meets the schema documented for it.
    const disagreements = answerDisagreements(method, url, {
      status: result.status,
      json: isJson ? result.json : undefined,
    });
    if (disagreements.length)
      throw new Error(`The answer disagrees with docs/api/openapi.json:\n${disagreements.join('\n')}`);
    return result;
  };

  const signIn = async (login: string) => {
    const response = await call('POST', '/_local/sign-in', { body: { login } });
    if (response.status !== 200) throw new Error(`sign-in failed: ${JSON.stringify(response.json)}`);
    return response.json as { sessionToken: string; tenantId: string; userId: string; role: string };
  };

  /**
   * A signed-in administrator whose tenant has locked a slug, in `homeRegion`, or by default in a
   * Home Region of its own with five places of every Plan.
   */
  const readyTenant = async (homeRegion?: string) => {
    const login = uniqueLogin('payer');
    const session = await signIn(login);
    const slug = uniqueSlug('payer');
    const locked = await call('POST', '/v1/tenant/slug', { token: session.sessionToken, body: { slug } });
    if (locked.status !== 200) throw new Error(`slug failed: ${JSON.stringify(locked.json)}`);
    const region = homeRegion ?? uniqueRegion();
    if (!homeRegion) {
      for (const plan of PLAN_VALUES)
        await setCapacityTotal({ region, location: `${region}-a`, plan, total: 5 }, clock.now());
    }
    await moveToRegion(session.tenantId, region);
    return { ...session, slug, region, login };
  };

  /** `login` added as a member of `admin`'s tenant (failing loudly unless 201), then signed in. */
  const addMember = async (admin: { sessionToken: string }, login: string) => {
    const added = await call('POST', '/_local/members', { token: admin.sessionToken, body: { login } });
    if (added.status !== 201)
      throw new Error(`member not added: ${added.status} ${JSON.stringify(added.json)}`);
    return signIn(login);
  };

  /** A Stack on `plan` added by `tenant` (failing loudly unless 201): the answer. */
  const addStack = async (tenant: { sessionToken: string }, plan: string) => {
    const added = await call('POST', '/v1/stacks', { token: tenant.sessionToken, body: { plan } });
    if (added.status !== 201)
      throw new Error(`Stack not added: ${added.status} ${JSON.stringify(added.json)}`);
    return added;
  };

  const sqs = new SQSClient({});
  /** Every message now on this file's processor event queue, removed from it. */
  const drainQueue = async (): Promise<
    { id: string; type: string; data: { object: Record<string, unknown> } }[]
  > => {
    if (!queueUrl) throw new Error('testGateway({ processor: true }) has the queue');
    const events = [];
    for (;;) {
      const { Messages } = await sqs.send(
        new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 0 }),
      );
      if (!Messages?.length) return events;
      for (const message of Messages) {
        events.push(JSON.parse(message.Body ?? '{}'));
        await sqs.send(
          new DeleteMessageCommand({ QueueUrl: queueUrl, ReceiptHandle: message.ReceiptHandle }),
        );
      }
    }
  };

  const stop = async () => {
    await stepFunctions.stop();
    await emulator?.stop();
    await closeServer(server);
    sqs.destroy();
  };

  /** Lets the emulator's webhooks land, then runs one sweep. */
  const sweep = async () => {
    await emulator?.flushWebhooks();
    return sweeper.runNow();
  };

  /**
   * A tenant that checked out `plan` and paid with `card` (in `region`, or one of its own) on the
   * hosted page; the sweep has not run since. Fails loudly when the page refuses the card.
   */
  const paidNotSwept = async (options: { plan?: string; card?: string; region?: string } = {}) => {
    const tenant = await readyTenant(options.region);
    const { json } = await call('POST', '/v1/billing/checkout', {
      token: tenant.sessionToken,
      body: { plan: options.plan ?? 'plus' },
    });
    const paid = await payOnCheckout(json.url, options.card ?? TEST_CARDS.succeeds);
    if (paid.status !== 303) throw new Error(`checkout not paid: ${paid.status}`);
    return tenant;
  };

  /** As `paidNotSwept`, and the sweep has seen the payment. */
  const subscribe = async (options: { plan?: string; card?: string; region?: string } = {}) => {
    const tenant = await paidNotSwept(options);
    await sweep();
    return tenant;
  };

  return {
    subscribe,
    paidNotSwept,
    stepFunctions,
    fleet,
    gateway,
    clock,
    call,
    signIn,
    readyTenant,
    addMember,
    addStack,
    emulator,
    apiUrl,
    queueUrl,
    drainQueue,
    sweep,
    stop,
  };
};

export type TestControlPlane = Awaited<ReturnType<typeof testGateway>>;

/** The emails the SES stand-in accepted for `to`. */
export const emailsTo = async (
  to: string,
): Promise<{ subject: string; body: { text?: string; html?: string } }[]> => {
  const store = (await (await fetch(`${process.env.AWS_ENDPOINT_URL_SESV2}/store`)).json()) as {
    emails: { destination: { to: string[] }; subject: string; body: { text?: string; html?: string } }[];
  };
  return store.emails.filter((email) => email.destination.to.includes(to));
};

/** Gives a tenant a Home Region of its own, so that its capacity is shared with no other test. */
export const moveToRegion = async (tenantId: string, region: string) => {
  await db().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: keys.tenant(tenantId),
      UpdateExpression: 'SET homeRegion = :region',
      ExpressionAttributeValues: { ':region': region },
    }),
  );
};

export const uniqueRegion = () => `test-${randomUUID().slice(0, 8)}`;

/**
 * A region of the test's own with these places: per location of it (`a` is `${region}-a`), the
 * total of each Plan named, set in the order given (`{ a: { standard: 1, pro: 0 }, b: { pro: 1 } }`).
 */
export const regionWithPlaces = async (
  clock: { now(): Date },
  places: Record<string, Partial<Record<PlanValue, number>>>,
) => {
  const region = uniqueRegion();
  const now = clock.now();
  for (const [suffix, totals] of Object.entries(places))
    for (const [plan, total] of Object.entries(totals) as [PlanValue, number][])
      await setCapacityTotal({ region, location: `${region}-${suffix}`, plan, total }, now);
  return region;
};
