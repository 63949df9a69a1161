import { rmSync } from 'node:fs';
import type { Server } from 'node:http';
import path from 'node:path';
import { CreateQueueCommand, GetQueueAttributesCommand, SQSClient } from '@aws-sdk/client-sqs';
import * as sesModule from 'aws-ses-v2-local';
import type { Environment } from '../../functions/ports/config.ts';
import { MAX_RECEIVES } from '../constants.ts';
import { ensureTable, localCredentials, startDynamoDbLocal } from './dynamodb.ts';
import { startFaultProxy } from './fault-proxy.ts';
import type { FaultBoard } from './faults.ts';
import { type LocalKms, startLocalKms } from './kms.ts';
import { closeServer, freePort } from './ports.ts';
import { LOCAL_SIGNING_KEY_PAIR_ID, type LocalS3, localSigningKey, startLocalS3 } from './s3.ts';
import { startSqsStandIn } from './sqs.ts';
import { type LocalStepFunctions, startLocalStepFunctions } from './stepfunctions.ts';

export const LOCAL_REGION = 'eu-west-1';
export const LOCAL_TABLE_NAME = 'stack-control-plane';

export interface LocalCloudOptions {
  /** Folder for kept state (the DynamoDB file); everything in memory when absent. */
  dataDirectory?: string;
  /** Wipe the data folder first. */
  fresh?: boolean;
  dynamoDbPort?: number;
  sqsPort?: number;
  sesPort?: number;
  stepFunctionsPort?: number;
  kmsPort?: number;
  s3Port?: number;
  /**
   * An outside DynamoDB (Local) to use instead of starting one: it outlives this process, as the
   * cloud's table does (the crash run, test/crash/run.ts). The table is created there if missing.
   */
  dynamoDbEndpoint?: string;
  /** Told as each part comes up: its name, what it is and where, and how long it took (ms). */
  progress?: (part: string, detail: string, ms: number) => void;
  /**
   * The board that decides injected faults: the handlers then reach the stand-ins through fault
   * proxies. Absent (the integration layer's shared stand-ins), they reach the stand-ins directly.
   */
  faults?: FaultBoard;
}

export interface LocalCloud {
  /** The environment the handlers need: the standard AWS variables pointing at the stand-ins. */
  environment: Record<string, string>;
  endpoints: { dynamodb: string; sqs: string; ses: string; stepFunctions: string; kms: string; s3: string };
  dynamoDbPid: number | undefined;
  /** The Step Functions stand-in: its tasks run in this process (the one that installs the Clock). */
  stepFunctions: LocalStepFunctions;
  /**
   * Faults on demand (when a board was given): the handlers reach DynamoDB, SQS, SES, Step
   * Functions and S3 through fault proxies that consult this board (nothing is armed at first).
   */
  faults: FaultBoard | undefined;
  stop(): Promise<void>;
}

/** aws-ses-v2-local is CommonJS with a default export: reach it the same way under Node and Vite. */
type SesStarter = (config: { host: string; port: number }) => Promise<Server>;
const startSes = ((sesModule as unknown as { default?: SesStarter | { default: SesStarter } }).default ??
  sesModule) as SesStarter | { default: SesStarter };
const startSesServer = (config: { host: string; port: number }) =>
  typeof startSes === 'function' ? startSes(config) : startSes.default(config);

/**
 * Creates the processor event queue and its dead-letter queue (as the CDK stack does) on the SQS
 * stand-in. Returns their URLs.
 */
export const createProcessorQueues = async (
  sqsEndpoint: string,
  name = 'processor-events',
  visibilityTimeoutSeconds = 120,
) => {
  const client = new SQSClient({
    endpoint: sqsEndpoint,
    region: LOCAL_REGION,
    credentials: localCredentials,
  });
  try {
    const deadLetters = await client.send(new CreateQueueCommand({ QueueName: `${name}-dlq` }));
    const { Attributes } = await client.send(
      new GetQueueAttributesCommand({ QueueUrl: deadLetters.QueueUrl, AttributeNames: ['QueueArn'] }),
    );
    const events = await client.send(
      new CreateQueueCommand({
        QueueName: name,
        Attributes: {
          VisibilityTimeout: String(visibilityTimeoutSeconds),
          RedrivePolicy: JSON.stringify({
            deadLetterTargetArn: Attributes?.QueueArn,
            maxReceiveCount: MAX_RECEIVES,
          }),
        },
      }),
    );
    if (!events.QueueUrl || !deadLetters.QueueUrl) throw new Error('the SQS stand-in returned no queue URL');
    return { events: events.QueueUrl, deadLetters: deadLetters.QueueUrl };
  } finally {
    client.destroy();
  }
};

/**
 * Starts the local stand-ins for the AWS services (DynamoDB Local, SQS, SES v2, Step Functions, KMS, S3) and creates the
 * table from THE table definition. The handlers reach them through the standard
 * AWS_ENDPOINT_URL_* variables, so their code is exactly what Lambda runs.
 */
export const startLocalCloud = async (options: LocalCloudOptions = {}): Promise<LocalCloud> => {
  if (options.fresh && options.dataDirectory) rmSync(options.dataDirectory, { recursive: true, force: true });
  const [dynamoDbPort, sqsPort, sesPort] = await Promise.all([
    options.dynamoDbPort || freePort(),
    options.sqsPort || freePort(),
    options.sesPort || freePort(),
  ]);
  const progress = options.progress ?? (() => undefined);
  /** Runs one part's start, then tells `progress` how long it took. */
  const timed = async <T>(
    part: string,
    start: () => Promise<T>,
    detail: (value: T) => string,
  ): Promise<T> => {
    const startedAt = performance.now();
    const value = await start();
    progress(part, detail(value), performance.now() - startedAt);
    return value;
  };
  // DynamoDB Local is a Java process (the slowest part): it starts while the others come up.
  const dynamoStarting = timed(
    'table',
    async () => {
      if (options.dynamoDbEndpoint) {
        const endpoint = options.dynamoDbEndpoint;
        await ensureTable(endpoint, LOCAL_TABLE_NAME);
        return { endpoint, pid: undefined, stop: async () => undefined };
      }
      const started = await startDynamoDbLocal({
        port: dynamoDbPort,
        ...(options.dataDirectory ? { dataDirectory: path.join(options.dataDirectory, 'dynamodb') } : {}),
      });
      try {
        await ensureTable(started.endpoint, LOCAL_TABLE_NAME);
      } catch (error) {
        await started.stop();
        throw error;
      }
      return started;
    },
    (started) =>
      `${options.dynamoDbEndpoint ? 'outside DynamoDB' : 'DynamoDB Local (Java)'} at ${started.endpoint}, table ${LOCAL_TABLE_NAME}`,
  );
  // Awaited below; a failure meanwhile (no Java) must not count as an unhandled rejection.
  dynamoStarting.catch(() => undefined);
  let sqs: Server | undefined;
  let ses: Server | undefined;
  let stepFunctions: LocalStepFunctions | undefined;
  let kms: LocalKms | undefined;
  let s3: LocalS3 | undefined;
  let queues: { events: string; deadLetters: string } | undefined;
  try {
    sqs = await timed(
      'queue',
      () =>
        startSqsStandIn(
          sqsPort,
          LOCAL_REGION,
          // Messages kept beside the table, so they outlive the process as the queue's do.
          options.dataDirectory ? path.join(options.dataDirectory, 'queues.json') : undefined,
        ),
      () => `SQS stand-in at http://127.0.0.1:${sqsPort}`,
    );
    queues = await createProcessorQueues(`http://127.0.0.1:${sqsPort}`);
    ses = await timed(
      'mail',
      () => startSesServer({ host: '127.0.0.1', port: sesPort }),
      () => `SES stand-in at http://127.0.0.1:${sesPort}`,
    );
    stepFunctions = await timed(
      'workflows',
      () =>
        startLocalStepFunctions({
          region: LOCAL_REGION,
          ...(options.stepFunctionsPort ? { port: options.stepFunctionsPort } : {}),
          // Executions kept beside the table, so they outlive the process as the service's do.
          ...(options.dataDirectory ? { dataDirectory: options.dataDirectory } : {}),
        }),
      (started) => `Step Functions stand-in at ${started.endpoint}`,
    );
    // The master key lives in the data folder, beside the table whose Credentials it seals.
    kms = await timed(
      'keys',
      () =>
        startLocalKms({
          region: LOCAL_REGION,
          ...(options.dataDirectory ? { dataDirectory: options.dataDirectory } : {}),
          ...(options.kmsPort ? { port: options.kmsPort } : {}),
        }),
      (started) => `KMS stand-in at ${started.endpoint}`,
    );
    // The export archives' bucket (its objects in the data folder, beside the table).
    s3 = await timed(
      'storage',
      () =>
        startLocalS3({
          ...(options.dataDirectory ? { dataDirectory: options.dataDirectory } : {}),
          ...(options.s3Port ? { port: options.s3Port } : {}),
        }),
      (started) => `S3 stand-in at ${started.endpoint}`,
    );
  } catch (error) {
    if (sqs) await closeServer(sqs);
    if (ses) await closeServer(ses);
    await stepFunctions?.stop();
    await kms?.stop();
    await s3?.stop();
    await dynamoStarting.then(
      (started) => started.stop(),
      () => undefined,
    );
    throw error;
  }
  let dynamo: Awaited<typeof dynamoStarting>;
  try {
    dynamo = await dynamoStarting;
  } catch (error) {
    await closeServer(sqs);
    await closeServer(ses);
    await stepFunctions.stop();
    await kms.stop();
    await s3.stop();
    throw error;
  }
  const endpoints = {
    dynamodb: dynamo.endpoint,
    sqs: `http://127.0.0.1:${sqsPort}`,
    ses: `http://127.0.0.1:${sesPort}`,
    stepFunctions: stepFunctions.endpoint,
    kms: kms.endpoint,
    s3: s3.endpoint,
  };
  const sqsServer = sqs;
  const sesServer = ses;
  const workflows = stepFunctions;
  const keys = kms;
  const objects = s3;
  const faults = options.faults;
  const direct = (endpoint: string) => ({ endpoint, stop: async () => undefined });
  const proxy = (dependency: Parameters<typeof startFaultProxy>[0], endpoint: string) =>
    faults ? startFaultProxy(dependency, endpoint, faults) : Promise.resolve(direct(endpoint));
  const proxies = {
    table: await proxy('table', endpoints.dynamodb),
    queue: await proxy('queue', endpoints.sqs),
    mail: await proxy('mail', endpoints.ses),
    workflow: await proxy('workflow', endpoints.stepFunctions),
    storage: await proxy('storage', endpoints.s3),
  };
  // The SDK sends SQS calls to the queue URL's host: the URLs name the proxy.
  const viaProxy = (queueUrl: string) => {
    const url = new URL(queueUrl);
    return `${proxies.queue.endpoint}${url.pathname}`;
  };
  return {
    endpoints,
    dynamoDbPid: dynamo.pid,
    stepFunctions: workflows,
    faults,
    environment: {
      AWS_REGION: LOCAL_REGION,
      AWS_ACCESS_KEY_ID: localCredentials.accessKeyId,
      AWS_SECRET_ACCESS_KEY: localCredentials.secretAccessKey,
      AWS_ENDPOINT_URL_DYNAMODB: proxies.table.endpoint,
      AWS_ENDPOINT_URL_SQS: proxies.queue.endpoint,
      AWS_ENDPOINT_URL_SESV2: proxies.mail.endpoint,
      AWS_ENDPOINT_URL_SFN: proxies.workflow.endpoint,
      PLAN_CHANGE_STATE_MACHINE_ARN: workflows.stateMachineArn,
      AWS_ENDPOINT_URL_KMS: endpoints.kms,
      CREDENTIALS_KEY_ID: keys.keyId,
      AWS_ENDPOINT_URL_S3: proxies.storage.endpoint,
      EXPORTS_BUCKET: objects.bucket,
      EXPORTS_SIGNING_KEY: localSigningKey(),
      EXPORTS_SIGNING_KEY_PAIR_ID: LOCAL_SIGNING_KEY_PAIR_ID,
      TABLE_NAME: LOCAL_TABLE_NAME,
      PROCESSOR_EVENTS_QUEUE_URL: viaProxy(queues.events),
      PROCESSOR_EVENTS_DLQ_URL: viaProxy(queues.deadLetters),
    } satisfies Environment,
    stop: async () => {
      await workflows.stop();
      await Promise.all([
        ...Object.values(proxies).map((proxy) => proxy.stop()),
        closeServer(sqsServer),
        closeServer(sesServer),
        keys.stop(),
        objects.stop(),
        dynamo.stop(),
      ]);
    },
  };
};
