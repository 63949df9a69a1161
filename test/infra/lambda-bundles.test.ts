import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { PlanChangeExecution } from '#core/plan-change.ts';
import { db, tableName } from '#store/client.ts';
import { keys } from '#store/keys.ts';
import { type LocalCloud, startLocalCloud } from '../../lib/local/cloud.ts';
import type { AdapterRoute, ApiHandler, AuthorizerHandler } from '../../lib/local/http-adapter.ts';
import { LOCAL_PROCESSOR_API_KEY, LOCAL_WEBHOOK_SECRET } from '../../lib/local/processor/local.ts';
import { localSigningKey } from '../../lib/local/s3.ts';
import { PLAN_CHANGE_TASKS } from '../../lib/plan-change-tasks.ts';
import { type HttpMethod, routes, servedPaths } from '../../lib/routes.ts';
import { type TestControlPlane, testGateway, uniqueRegion } from '../support/gateway.ts';
import { payOnCheckout, TEST_CARDS } from '../support/hosted-pages.ts';
import {
  type BundledFunction,
  BundleInstance,
  functionEnvironment,
  nodeOfMajor,
  readAssembly,
  runtimeNodeMajor,
  startSecretsAndLambdaStandIn,
} from '../support/lambda-bundles.ts';
import { openPlaces, planChangeWorld, startDispatcher } from '../support/plan-change-world.ts';
import { processorView } from '../support/processor-view.ts';
import { waitFor } from '../support/wait.ts';

/**
 * The artifacts `cdk deploy` uploads are the ones tested: each Lambda function's bundle as CDK
 * packaged it in the infra layer's synthesized assembly (the same app and context as CI's
 * `npm run synth -- -c stage=synth-check`), found through the assembly's asset manifests and
 * templates, loaded in a Node process of the runtime's version with only the AWS SDK provided
 * (test/support/lambda-bundle-worker.mjs), given its template's environment (CloudFormation values
 * replaced by the local cloud's), and invoked with API Gateway HTTP API (payload 2.0) events
 * against DynamoDB Local and the stand-ins. Synth alone cannot see a bundle that fails to load.
 */

const assembly = readAssembly(inject('synthesizedStack').directory);
const nodeFunctions = assembly.functions.filter((fn) => runtimeNodeMajor(fn.runtime) !== undefined);
const majors = [...new Set(nodeFunctions.map((fn) => runtimeNodeMajor(fn.runtime)))];
const runtimeMajor = majors[0] ?? 0;
const node = nodeOfMajor(runtimeMajor);
const nodeBinary = 'binary' in node ? node.binary : undefined;
const byId = new Map(assembly.functions.map((fn) => [fn.logicalId, fn]));
const fnOf = (id: string | undefined): BundledFunction => {
  const fn = id ? byId.get(id) : undefined;
  if (!fn) throw new Error(`no function ${id} in the assembly`);
  return fn;
};

const AUTHORIZATION = { session: 'CUSTOM', dispatcher: 'CUSTOM', none: 'NONE', iam: 'AWS_IAM' } as const;
const SECRET_ARN = (name: string) => `arn:aws:secretsmanager:eu-west-1:000000000000:secret:${name}`;
const CONSOLE_ORIGIN = 'https://console.bundle-test.test';

/** An HTTP API (payload 2.0) event, as API Gateway sends it to a route's function. */
const httpEvent = (
  method: HttpMethod,
  routePath: string,
  options: { body?: string; headers?: Record<string, string>; authorizer?: unknown } = {},
): APIGatewayProxyEventV2 => {
  const rawPath = routePath.replace(/\{(\w+)\}/g, 'bundle-test-$1');
  const parameters = [...routePath.matchAll(/\{(\w+)\}/g)].map((match) => match[1] as string);
  const now = new Date();
  return {
    version: '2.0',
    routeKey: `${method} ${routePath}`,
    rawPath,
    rawQueryString: '',
    headers: { 'content-type': 'application/json', host: 'api.bundle-test.test', ...options.headers },
    ...(parameters.length
      ? { pathParameters: Object.fromEntries(parameters.map((name) => [name, `bundle-test-${name}`])) }
      : {}),
    requestContext: {
      accountId: '000000000000',
      apiId: 'bundle-test',
      domainName: 'api.bundle-test.test',
      domainPrefix: 'api',
      http: { method, path: rawPath, protocol: 'HTTP/1.1', sourceIp: '192.0.2.1', userAgent: 'bundle-test' },
      requestId: `bundle-test-${now.getTime()}`,
      routeKey: `${method} ${routePath}`,
      stage: '$default',
      time: now.toUTCString(),
      timeEpoch: now.getTime(),
      ...(options.authorizer ? { authorizer: { lambda: options.authorizer } } : {}),
    },
    ...(options.body !== undefined ? { body: options.body } : {}),
    isBase64Encoded: false,
  };
};

/** Runs `work` over `items`, `limit` at a time (the machine has two cores). */
const inBatches = async <T, R>(items: T[], limit: number, work: (item: T) => Promise<R>) => {
  const results: R[] = [];
  for (let start = 0; start < items.length; start += limit)
    results.push(...(await Promise.all(items.slice(start, start + limit).map(work))));
  return results;
};

let cloud: LocalCloud | undefined;
let standIn: Awaited<ReturnType<typeof startSecretsAndLambdaStandIn>> | undefined;

/**
 * The local value of each template variable that CloudFormation fills in at deploy time, by
 * name; the test process's environment is the local cloud's (set in beforeAll).
 */
const cloudValues = (): Record<string, string> => ({
  TABLE_NAME: process.env.TABLE_NAME ?? '',
  TENANT_APP_URL: `${CONSOLE_ORIGIN}/`,
  PUBLIC_API_URL: CONSOLE_ORIGIN,
  PROCESSOR_EVENTS_QUEUE_URL: process.env.PROCESSOR_EVENTS_QUEUE_URL ?? '',
  PROCESSOR_EVENTS_DLQ_URL: process.env.PROCESSOR_EVENTS_DLQ_URL ?? '',
  PLAN_CHANGE_STATE_MACHINE_ARN: process.env.PLAN_CHANGE_STATE_MACHINE_ARN ?? '',
  CREDENTIALS_KEY_ID: process.env.CREDENTIALS_KEY_ID ?? '',
  EXPORTS_BUCKET: process.env.EXPORTS_BUCKET ?? '',
  EXPORTS_DOWNLOAD_BASE_URL: CONSOLE_ORIGIN,
  EXPORTS_SIGNING_KEY_PAIR_ID: process.env.EXPORTS_SIGNING_KEY_PAIR_ID ?? '',
  RECONCILER_FUNCTION_NAME: assembly.scheduledFunctions[0] ?? '',
  CODE_HOST_CLIENT_SECRET_ARN: SECRET_ARN('CodeHostClientSecret'),
  PROCESSOR_API_KEY_ARN: SECRET_ARN('ProcessorApiKey'),
  PROCESSOR_WEBHOOK_SECRET_ARN: SECRET_ARN('ProcessorWebhookSecret'),
  EXPORTS_SIGNING_KEY_ARN: SECRET_ARN('ExportsSigningKey'),
});

/**
 * What the test adds that is not in the template: the stand-ins' endpoints and credentials (in
 * Lambda: the real services and the function's role), the processor emulator's URL (in Lambda:
 * Stripe's), and the Plan Change release gates an operator declares ready with the context
 * `planChangeGatesReady` (the synth-check stage declares none).
 */
const extraEnvironment = (): Record<string, string> => {
  const local = process.env;
  const pick = (...names: string[]) =>
    Object.fromEntries(names.flatMap((name) => (local[name] ? [[name, local[name] as string]] : [])));
  return {
    ...pick(
      'AWS_REGION',
      'AWS_ACCESS_KEY_ID',
      'AWS_SECRET_ACCESS_KEY',
      'AWS_ENDPOINT_URL_DYNAMODB',
      'AWS_ENDPOINT_URL_SQS',
      'AWS_ENDPOINT_URL_SESV2',
      'AWS_ENDPOINT_URL_SFN',
      'AWS_ENDPOINT_URL_KMS',
      'AWS_ENDPOINT_URL_S3',
      'PROCESSOR_API_URL',
      'PLAN_CHANGE_GATES_READY',
    ),
    AWS_ENDPOINT_URL_SECRETS_MANAGER: standIn?.endpoint ?? '',
    AWS_ENDPOINT_URL_LAMBDA: standIn?.endpoint ?? '',
    POWERTOOLS_LOG_LEVEL: 'WARN',
  };
};

const startInstance = (fn: BundledFunction) => {
  if (!nodeBinary) throw new Error('no Node of the runtime version');
  return new BundleInstance(fn, nodeBinary, functionEnvironment(fn, cloudValues(), extraEnvironment()));
};

/** Instances kept for the main-job tests: one per function, started on first use (a warm Lambda). */
const instances = new Map<string, BundleInstance>();
const warm = (id: string) => {
  let instance = instances.get(id);
  if (!instance) {
    instance = startInstance(fnOf(id));
    instances.set(id, instance);
  }
  return instance;
};

const routeHandler =
  (functionId: string): ApiHandler =>
  (event) =>
    warm(functionId).invoke<APIGatewayProxyStructuredResultV2>(event);

const bundleApi = () => {
  const adapterRoutes: AdapterRoute[] = [];
  for (const route of routes)
    for (const served of servedPaths(route)) {
      const wired = assembly.routes.get(`${route.method} ${served.path}`);
      if (!wired) throw new Error(`no route ${route.method} ${served.path} in the template`);
      adapterRoutes.push({
        method: route.method,
        path: served.path,
        auth: route.auth,
        handler: routeHandler(wired.functionId),
      });
    }
  const authorizerId = assembly.authorizerId ?? '';
  const authorizer: AuthorizerHandler = (event) =>
    warm(authorizerId).invoke<Awaited<ReturnType<AuthorizerHandler>>>(event);
  return { routes: adapterRoutes, authorizer };
};

/** Task state -> how often its bundle ran. */
const taskRuns = new Map<string, number>();
/** The workflow stand-in's tasks, each run by the bundle of the function its substitution names. */
const taskHandlers = () =>
  Object.fromEntries(
    PLAN_CHANGE_TASKS.map((task) => {
      const id = assembly.taskFunctions.get(task.substitution);
      if (!id) throw new Error(`the state machine names no function for ${task.substitution}`);
      return [
        task.state,
        (input: PlanChangeExecution) => {
          taskRuns.set(task.state, (taskRuns.get(task.state) ?? 0) + 1);
          return warm(id).invoke<PlanChangeExecution>(input);
        },
      ];
    }),
  );

describe.skipIf(!nodeBinary)(
  `the Lambda bundles of the synthesized assembly, under the runtime's Node ${runtimeMajor} (${'binary' in node ? node.version : `not found here: ${node.found.join(', ')}`})`,
  () => {
    let api: TestControlPlane;

    beforeAll(async () => {
      cloud = await startLocalCloud();
      Object.assign(process.env, cloud.environment);
      standIn = await startSecretsAndLambdaStandIn(
        new Map([
          [SECRET_ARN('CodeHostClientSecret'), 'bundle-test-client-secret'],
          [SECRET_ARN('ProcessorApiKey'), LOCAL_PROCESSOR_API_KEY],
          [SECRET_ARN('ProcessorWebhookSecret'), LOCAL_WEBHOOK_SECRET],
          [SECRET_ARN('ExportsSigningKey'), localSigningKey()],
        ]),
      );
      api = await testGateway({
        processor: true,
        api: bundleApi(),
        stepFunctions: { waitMs: 10, handlers: taskHandlers() },
      });
    }, 180_000);

    afterAll(async () => {
      await Promise.all([...instances.values()].map((instance) => instance.stop()));
      await api?.stop();
      await standIn?.stop();
      await cloud?.stop();
    }, 60_000);

    it('a bundle that imports a package it left out fails to load; the AWS SDK is provided, as by the runtime', async () => {
      const folder = mkdtempSync(path.join(tmpdir(), 'bundle-test-'));
      try {
        const fake = (name: string, imported: string) => {
          mkdirSync(path.join(folder, name));
          writeFileSync(
            path.join(folder, name, 'index.mjs'),
            `import ${JSON.stringify(imported)};\nexport const handler = async () => 'ran';\n`,
          );
          return {
            ...fnOf(assembly.authorizerId),
            logicalId: name,
            bundleDirectory: path.join(folder, name),
          };
        };
        const missing = startInstance(fake('Missing', 'valibot'));
        await expect(missing.loaded).rejects.toThrow(/'valibot'.*not in the bundle/);
        const sdk = startInstance(fake('Sdk', '@aws-sdk/client-dynamodb'));
        try {
          expect(await sdk.invoke({})).toBe('ran');
        } finally {
          await sdk.stop();
        }
      } finally {
        rmSync(folder, { recursive: true, force: true });
      }
    });

    it('finds every function of the template in an asset of the assembly, all on one Node.js runtime', () => {
      expect(nodeFunctions.length).toBeGreaterThan(routes.length);
      expect(majors).toEqual([runtimeMajor]);
      // Every route, the authorizer, every Plan Change task and the sweep are among them.
      expect(nodeFunctions.map((fn) => fn.logicalId)).toEqual(
        expect.arrayContaining([
          ...[...assembly.routes.values()].map((route) => route.functionId),
          assembly.authorizerId,
          ...assembly.taskFunctions.values(),
          ...assembly.scheduledFunctions,
        ]),
      );
      expect(assembly.taskFunctions.size).toBe(PLAN_CHANGE_TASKS.length);
      expect(assembly.scheduledFunctions).toHaveLength(1);
    });

    it('every route of lib/routes.ts is in the template, and its bundle loads and answers its refusal (no session, or no valid input)', async () => {
      const cases = routes.flatMap((route) =>
        servedPaths(route).map((served) => ({ route, path: served.path })),
      );
      const answers = await inBatches(cases, 2, async ({ route, path }) => {
        const wired = assembly.routes.get(`${route.method} ${path}`);
        expect(wired, `${route.method} ${path} in the template`).toBeDefined();
        expect(wired?.authorization).toBe(AUTHORIZATION[route.auth]);
        const instance = startInstance(fnOf(wired?.functionId));
        try {
          const result = await instance.invoke<APIGatewayProxyStructuredResultV2>(
            httpEvent(route.method, path, { body: '{"bundle-test": "not a valid body"}' }),
          );
          const body = JSON.parse(result.body ?? '{}') as { error?: { code?: string } };
          return {
            route: `${route.method} ${path}`,
            auth: route.auth,
            status: result.statusCode,
            code: body.error?.code,
          };
        } catch (error) {
          return { route: `${route.method} ${path}`, auth: route.auth, status: 0, code: String(error) };
        } finally {
          await instance.stop();
        }
      });
      for (const answer of answers)
        expect(answer, answer.route).toMatchObject({
          // Session and Dispatcher routes: no authorizer context, 401. Public and operator routes
          // (API Gateway's IAM check comes first in the cloud): the invalid body, 400.
          status: answer.auth === 'session' || answer.auth === 'dispatcher' ? 401 : 400,
          code: expect.stringMatching(/^[a-z_]+$/),
        });
    }, 300_000);

    describe('the main jobs, through the bundles of the routes, the authorizer, the sweep and the Plan Change tasks', () => {
      const sweepId = () => assembly.scheduledFunctions[0] ?? '';
      const state: {
        tenant?: Awaited<ReturnType<TestControlPlane['readyTenant']>>;
        checkoutUrl?: string;
        stackId?: string;
      } = {};
      const tenant = () => {
        if (!state.tenant) throw new Error('the checkout test runs first');
        return state.tenant;
      };
      const item = async (key: { PK: string; SK: string }) =>
        (await db().send(new GetCommand({ TableName: tableName(), Key: key, ConsistentRead: true }))).Item;
      /** What EventBridge's schedule sends the sweep. */
      const scheduledEvent = () => ({
        version: '0',
        id: 'bundle-test',
        'detail-type': 'Scheduled Event',
        source: 'aws.events',
        account: '000000000000',
        time: new Date().toISOString(),
        region: process.env.AWS_REGION,
        resources: ['arn:aws:events:eu-west-1:000000000000:rule/bundle-test'],
        detail: {},
      });

      it('checkout: an administrator starts the hosted Checkout; the bundle stores the open attempt', async () => {
        const region = uniqueRegion();
        await openPlaces(api, region, 3);
        state.tenant = await api.readyTenant(region);
        const response = await api.call('POST', '/v1/billing/checkout', {
          token: tenant().sessionToken,
          body: { plan: 'plus' },
        });
        expect(response.status, JSON.stringify(response.json)).toBe(200);
        state.checkoutUrl = response.json.url;
        expect(await item(keys.billing(tenant().tenantId))).toMatchObject({
          checkout: { plan: 'plus', state: 'open', url: response.json.url },
        });
        // The processor API key came from Secrets Manager by the ARN the template gives.
        expect(standIn?.secretReads).toContain(SECRET_ARN('ProcessorApiKey'));
      });

      it("the webhook: the processor's signed events are verified, queued and the sweep is nudged", async () => {
        const paid = await payOnCheckout(state.checkoutUrl ?? '', TEST_CARDS.succeeds);
        expect(paid.status).toBe(303);
        await api.emulator?.flushWebhooks();
        const queued = await waitFor('the verified events on the intake queue', async () => {
          const { SQSClient, GetQueueAttributesCommand } = await import('@aws-sdk/client-sqs');
          const sqs = new SQSClient({});
          try {
            const { Attributes } = await sqs.send(
              new GetQueueAttributesCommand({
                QueueUrl: process.env.PROCESSOR_EVENTS_QUEUE_URL,
                AttributeNames: ['ApproximateNumberOfMessages'],
              }),
            );
            const count = Number(Attributes?.ApproximateNumberOfMessages ?? 0);
            return count >= 3 && count;
          } finally {
            sqs.destroy();
          }
        });
        expect(queued).toBeGreaterThanOrEqual(3);
        expect(standIn?.secretReads).toContain(SECRET_ARN('ProcessorWebhookSecret'));
        expect(standIn?.invocations).toContainEqual(
          expect.objectContaining({ functionName: sweepId(), invocationType: 'Event' }),
        );
      });

      it('the sweep: the scheduled invocation reconciles the events; the tenant is active with its first Stack', async () => {
        const summary = await warm(sweepId()).invoke<{ skipped?: boolean }>(scheduledEvent(), 60_000);
        expect(summary.skipped).toBeUndefined();
        expect(await item(keys.tenant(tenant().tenantId))).toMatchObject({ billingState: 'active' });
        expect(await item(keys.billing(tenant().tenantId))).toMatchObject({
          subscriptionId: expect.stringMatching(/^sub_/),
        });
        const stacks = await api.call('GET', '/v1/stacks', { token: tenant().sessionToken });
        expect(stacks.status).toBe(200);
        expect(stacks.json.stacks).toHaveLength(1);
        state.stackId = stacks.json.stacks[0].stackId;
        expect(stacks.json.stacks[0]).toMatchObject({ plan: 'plus' });
      });

      it("desired state: the Stack's Dispatcher credential reads the Stack as it must be (ETag, then 304)", async () => {
        const issued = await api.call('POST', `/v1/stacks/${state.stackId}/dispatcher-credential`, {
          token: tenant().sessionToken,
        });
        expect(issued.status, JSON.stringify(issued.json)).toBeLessThan(300);
        const desired = await api.call('GET', '/v1/dispatcher/desired-state', {
          token: issued.json.credential,
        });
        expect(desired.status, JSON.stringify(desired.json)).toBe(200);
        expect(JSON.stringify(desired.json)).toContain('plus');
        const etag = desired.headers.etag;
        expect(etag).toBeTruthy();
        const again = await api.call('GET', '/v1/dispatcher/desired-state', {
          token: issued.json.credential,
          headers: { 'if-none-match': etag ?? '' },
        });
        expect(again.status).toBe(304);
      });

      it('a Plan Change: confirmed by its route, run by the task bundles with a Dispatcher, completed and stored', async () => {
        const world = planChangeWorld(api);
        const signedIn = { ...tenant(), stackId: state.stackId ?? '' };
        await startDispatcher(api, signedIn, `${signedIn.region}-a`, state.stackId);
        const confirmed = await world.confirm(signedIn, 'pro');
        expect(confirmed.status, JSON.stringify(confirmed.json)).toBe(202);
        await world.completes(signedIn, confirmed.json.changeId);
        const stack = await api.call('GET', `/v1/stacks/${state.stackId}`, { token: signedIn.sessionToken });
        expect(stack.json).toMatchObject({ plan: 'pro' });
        // The steps ran in the task bundles (billing committed on the processor, then completed).
        expect([...taskRuns.keys()]).toEqual(
          expect.arrayContaining(['DrainWork', 'Prepare', 'Switch', 'Verify', 'CommitBilling', 'Complete']),
        );
        if (!api.emulator) throw new Error('the gateway has the processor emulator');
        expect(processorView(api.emulator).itemsByPlan(signedIn.tenantId)).toEqual({ pro: 1 });
      }, 300_000);
    });

    it('the authorizer bundle and the Plan Change task, sweep and every other function bundle load', async () => {
      const others = nodeFunctions.filter(
        (fn) => ![...assembly.routes.values()].some((route) => route.functionId === fn.logicalId),
      );
      expect(others.length).toBeGreaterThanOrEqual(PLAN_CHANGE_TASKS.length + 2);
      // Those the main jobs ran (warm instances) have loaded already.
      for (const [id, instance] of instances)
        if (others.some((fn) => fn.logicalId === id)) await instance.loaded;
      const failures = (
        await inBatches(
          others.filter((fn) => !instances.has(fn.logicalId)),
          2,
          async (fn) => {
            const instance = startInstance(fn);
            try {
              await instance.loaded;
              return undefined;
            } catch (error) {
              return `${fn.logicalId}: ${(error as Error).message}`;
            } finally {
              await instance.stop();
            }
          },
        )
      ).filter(Boolean);
      expect(failures).toEqual([]);
    }, 300_000);
  },
);
