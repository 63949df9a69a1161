import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { KMSClient } from '@aws-sdk/client-kms';
import { S3Client } from '@aws-sdk/client-s3';
import { SESv2Client } from '@aws-sdk/client-sesv2';
import { SQSClient } from '@aws-sdk/client-sqs';
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import {
  HEARTBEAT_SECONDS,
  POLL_IDLE_MAX_SECONDS,
  POLL_IDLE_MIN_SECONDS,
  POLL_SOON_SECONDS,
} from '../../functions/core/dispatcher.ts';
import { RECHECK_HOURS } from '../../functions/core/lifecycle.ts';
import { sampleRateOf } from '../../functions/core/request-log.ts';
import { DEFAULTS } from '../../functions/ports/config.ts';
import { logger } from '../../functions/ports/logger.ts';
import { recordSweep, recordWebhook } from '../../functions/ports/metrics.ts';
import { processorRateLimit } from '../../functions/ports/rate-limit.ts';
import type { SweepSummary } from '../../functions/reconciler/run-sweep.ts';
import { db, tableName } from '../../functions/store/client.ts';
import { listDueTenants } from '../../functions/store/due.ts';
import { keys } from '../../functions/store/keys.ts';
import { REPO_ROOT } from '../../lib/constants.ts';
import { CONSOLE_DIRECTORY } from '../../lib/infra/constructs/console.ts';
import { DEFAULT_MEMORY_MB } from '../../lib/infra/constructs/lambda.ts';
import { RECONCILER_MEMORY_MB } from '../../lib/infra/constructs/reconciler.ts';
import { deliverWebhooksTo } from '../../lib/local/processor/local.ts';
import type { RunningControlPlane } from '../../lib/local/server.ts';
import { routes } from '../../lib/routes.ts';
import { idleSweep } from '../support/sweep-figures.ts';
import {
  API_ACCESS_LINE_BYTES,
  type Bill,
  DAYS_PER_MONTH,
  type FleetShape,
  fixedResources,
  lambdaSystemLogBytes,
  monthlyBill,
  PRICES,
  printBill,
  type TenantDayUsage,
  tracesRecordedPerDay,
} from './cost-model.ts';
import { onDispatch, paidCheckout } from './plane.ts';

/**
 * What it costs to run: the monthly AWS bill of the one cost model (./cost-model.ts), from what
 * this run measures on the local control plane (Lambda durations, DynamoDB capacity units, SQS,
 * SES, KMS and S3 calls, API requests and response bytes, log lines, processor calls, table
 * bytes) and the usage assumptions below, turned into one tenant-day (TenantDayUsage).
 */

/** Usage assumptions (not measured: they describe how tenants use the service). */
export const USAGE = {
  /** Session API calls a tenant's console makes a day (me, billing status, plans), through CloudFront. */
  apiCallsPerTenantPerDay: 20,
  /**
   * Console page loads a tenant makes a day, each fetching every file of the console from
   * CloudFront (no browser cache assumed: an overstatement); the files are counted below.
   */
  consoleVisitsPerTenantPerDay: 1,
  /** Share of the tenants that are new in a month (sign-up, slug, checkout, first payment). */
  newTenantsPerMonth: 0.05,
  /** Stacks per tenant: most have one, some two or three (issue 23). */
  stacksPerTenant: 1.2,
  /** Plan Changes a tenant makes a month, and how long one keeps its Stack polling soon. */
  planChangesPerTenantMonth: 0.02,
  planChangeBusySeconds: 30 * 60,
  /** A Plan Change's task functions: billed seconds each (not measured here). */
  planChangeTaskSeconds: 0.2,
  /** A Dispatcher reads one of its Stack's Credentials (one KMS Decrypt) this often a day. */
  credentialReadsPerStackDay: 1,
  /** One export a tenant a month: its S3 requests (multipart create, part, complete, the download's GET). */
  exportsPerTenantMonth: 1,
  s3RequestsPerExport: 4,
  exportBytes: 1_000_000,
  /** Exports expire after this many days (the bucket's lifecycle rule). */
  exportKeptDays: 7,
  /** The schedule runs the sweep every minute. */
  scheduledSweepsPerDay: 60 * 24,
  /** HTTP response headers (status line, date, content type, request id...) not in the local body count. */
  responseHeaderBytes: 250,
} as const;

/** Lambda's own log bytes per invocation: none where every function keeps them from WARN only. */
let systemLines: boolean | undefined;
const platformLogBytes = () => {
  systemLines ??= fixedResources().lambdaSystemLines;
  return lambdaSystemLogBytes({ lambdaSystemLines: systemLines });
};

const TENANT_COUNTS = [1_000, 100_000] as const;
const SAMPLE_TENANTS = 10;
const READ_ROUNDS = 5;
const POLLS = 20;
const READ_PATHS = ['/v1/me', '/v1/billing/status', '/v1/billing/plans'] as const;
const READ_COMMANDS = /^(Get|BatchGet|Query|Scan|TransactGet)/;
export const PER_THOUSAND_TARGET_USD = 15;

/** One EMF line of a sweep, and of a webhook, as the functions write them in Lambda. */
const SWEEP_EMF_BYTES = JSON.stringify(
  recordSweep(idleSweep({ homeRegionPlaceablePlans: 3, durationMs: 100 })),
).length;
const WEBHOOK_EMF_BYTES = JSON.stringify(recordWebhook('verified')).length;

/** The share of routine request lines the functions write in the cloud (functions/core/request-log.ts). */
const CLOUD_SAMPLE_RATE = sampleRateOf(undefined, Number(DEFAULTS.REQUEST_LOG_SAMPLE_RATE));

/** The console's files (what the site's bucket holds and a visit fetches): how many, and their bytes. */
const CONSOLE_FILES = (() => {
  const files = readdirSync(CONSOLE_DIRECTORY, { recursive: true, withFileTypes: true }).filter((entry) =>
    entry.isFile(),
  );
  return {
    count: files.length,
    bytes: files.reduce((sum, entry) => sum + statSync(path.join(entry.parentPath, entry.name)).size, 0),
  };
})();

/**
 * A tenant-day's console, CloudFront and S3 usage from the shared assumptions (USAGE), the one home
 * both benches take them from: the console's visits (every file of the console through CloudFront,
 * counted from lib/console, with its headers), the tenant app's session API calls through
 * CloudFront (`session`: requests and answer bytes a tenant makes a day, measured by the caller),
 * and the exports' S3 requests. `s3BytesPerTenant`: the exports kept, and the console's files
 * shared by the fleet.
 */
export const consoleTenantDay = (
  session: { requests: number; bytes: number },
  tenants: number,
): {
  cloudFrontRequests: number;
  cloudFrontBytesOut: number;
  s3Requests: number;
  s3BytesPerTenant: number;
  /** What the figures are made of, for a printout. */
  basis: string;
} => {
  const visits = USAGE.consoleVisitsPerTenantPerDay;
  const exportsPerDay = USAGE.exportsPerTenantMonth / DAYS_PER_MONTH;
  return {
    cloudFrontRequests: session.requests + visits * CONSOLE_FILES.count,
    cloudFrontBytesOut:
      session.bytes + visits * (CONSOLE_FILES.bytes + CONSOLE_FILES.count * USAGE.responseHeaderBytes),
    s3Requests: exportsPerDay * USAGE.s3RequestsPerExport,
    s3BytesPerTenant:
      USAGE.exportBytes * USAGE.exportsPerTenantMonth * (USAGE.exportKeptDays / DAYS_PER_MONTH) +
      CONSOLE_FILES.bytes / tenants,
    basis: `${visits} console visit(s) a tenant a day x ${CONSOLE_FILES.count} files (${(CONSOLE_FILES.bytes / 1000).toFixed(0)} KB, lib/console) + ${session.requests.toFixed(1)} session API calls (${(session.bytes / 1000).toFixed(1)} KB) through CloudFront; ${USAGE.exportsPerTenantMonth} export a tenant a month (${USAGE.s3RequestsPerExport} S3 requests, ${(USAGE.exportBytes / 1e6).toFixed(0)} MB kept ${USAGE.exportKeptDays} days)`,
  };
};

/** Route templates as regular expressions, with their auth and id. */
const routeMatchers = routes.map((route) => ({
  id: route.id,
  auth: route.auth,
  method: route.method.toUpperCase(),
  pattern: new RegExp(`^${route.path.replace(/\{[^}]+\}/g, '[^/]+')}$`),
}));

/** Everything the run counts, reset between phases. */
class Meter {
  readUnits = 0;
  writeUnits = 0;
  sqsRequests = 0;
  emails = 0;
  kmsRequests = 0;
  s3Requests = 0;
  /** API requests by whether they go through the authorizer (2 Lambda invocations) or not (1). */
  apiRequests = 0;
  authorizedRequests = 0;
  webhookRequests = 0;
  /** Requests and answer bytes through CloudFront (the console's session calls) or straight out (the rest). */
  cloudFrontRequests = 0;
  cloudFrontBytes = 0;
  directBytes = 0;
  /** Wall time of the requests (authorizer + handler), ms. */
  apiMs = 0;
  webhookMs = 0;
  sweeps = 0;
  sweepMs = 0;
  /** The authorizer's own share: runs, wall time, and the capacity units it consumed. */
  authorizerMs = 0;
  authorizerReadUnits = 0;
  authorizerWriteUnits = 0;
  /** Application log bytes the functions wrote at the cloud's level (INFO). */
  appLogBytes = 0;
  processorCalls = 0;
  /** Invocations by function (route id, `authorizer`, `sweep`), for X-Ray's per-function sampling. */
  byFunction: Record<string, number> = {};

  reset(): void {
    Object.assign(this, new Meter());
  }

  invoked(fn: string): void {
    this.byFunction[fn] = (this.byFunction[fn] ?? 0) + 1;
  }
}

const meter = new Meter();
let installed = false;

/**
 * Meters the running control plane from the bench's side, without touching functions/: every
 * DynamoDB call asks for its consumed capacity (ReturnConsumedCapacity=TOTAL, tables and indexes)
 * and adds it up; SQS, SES, KMS and S3 calls are counted; API requests and sweeps are timed;
 * application log lines are counted (and kept off the bench's output).
 */
const install = (plane: RunningControlPlane): void => {
  if (installed) return;
  installed = true;
  db().middlewareStack.add(
    (next, context) => async (args) => {
      (args.input as { ReturnConsumedCapacity?: string }).ReturnConsumedCapacity = 'TOTAL';
      const result = await next(args);
      const consumed = (result.output as { ConsumedCapacity?: unknown }).ConsumedCapacity;
      const units = (Array.isArray(consumed) ? consumed : consumed ? [consumed] : []).reduce(
        (sum: number, entry: { CapacityUnits?: number }) => sum + (entry.CapacityUnits ?? 0),
        0,
      );
      if (READ_COMMANDS.test(context.commandName ?? '')) meter.readUnits += units;
      else {
        meter.writeUnits += units;
        for (const key of writtenKeys(args.input as Record<string, unknown>)) keysWritten?.add(key);
      }
      return result;
    },
    { step: 'initialize', name: 'benchConsumedCapacity' },
  );
  const count = (prototype: { send: unknown }, add: () => void) => {
    const send = prototype.send as (...args: unknown[]) => unknown;
    prototype.send = function (this: unknown, ...args: unknown[]) {
      add();
      return send.apply(this, args);
    };
  };
  count(SQSClient.prototype, () => meter.sqsRequests++);
  count(SESv2Client.prototype, () => meter.emails++);
  count(KMSClient.prototype, () => meter.kmsRequests++);
  count(S3Client.prototype, () => meter.s3Requests++);

  // The authorizer's share of a request, so that a request its cache answers can be billed without it.
  const gateway = plane.gateway as unknown as { authorizer: (...args: unknown[]) => Promise<unknown> };
  const authorize = gateway.authorizer.bind(gateway);
  gateway.authorizer = async (...args: unknown[]) => {
    const started = performance.now();
    const [reads, writes] = [meter.readUnits, meter.writeUnits];
    try {
      return await authorize(...args);
    } finally {
      meter.authorizerMs += performance.now() - started;
      meter.authorizerReadUnits += meter.readUnits - reads;
      meter.authorizerWriteUnits += meter.writeUnits - writes;
    }
  };
  onDispatch(plane, ({ response, ms, pathname, method }) => {
    const route = routeMatchers.find((r) => r.method === method && r.pattern.test(pathname));
    const bytes = response.body.length + USAGE.responseHeaderBytes;
    if (pathname === '/v1/webhooks/processor') {
      meter.webhookRequests++;
      meter.webhookMs += ms;
      meter.directBytes += bytes;
      meter.invoked(route?.id ?? 'webhook');
    } else if (pathname.startsWith('/v1/')) {
      meter.apiRequests++;
      meter.apiMs += ms;
      meter.invoked(route?.id ?? pathname);
      if (route && route.auth !== 'none' && route.auth !== 'iam') {
        meter.authorizedRequests++;
        meter.invoked('authorizer');
      }
      if (route?.auth === 'session') {
        meter.cloudFrontRequests++;
        meter.cloudFrontBytes += bytes;
      } else meter.directBytes += bytes;
    }
  });
  const runNow = plane.sweeper.runNow.bind(plane.sweeper);
  plane.sweeper.runNow = async () => {
    const started = performance.now();
    const summary = await runNow();
    meter.sweeps++;
    meter.sweepMs += performance.now() - started;
    meter.invoked('sweep');
    return summary;
  };
  // The functions log at INFO in the cloud (the bench runs at ERROR): count those lines' bytes here
  // and keep them off the output.
  logger.setLogLevel('INFO');
  process.env.REQUEST_LOG_SAMPLE_RATE = '1';
  // Powertools writes INFO to stdout and WARN and ERROR to stderr: every JSON log line is counted;
  // only ERROR and CRITICAL still reach the bench's output (what it showed at its ERROR level).
  for (const stream of [process.stdout, process.stderr]) {
    const write = stream.write.bind(stream) as (...args: unknown[]) => boolean;
    stream.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
      const text = typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
      if (!(text.startsWith('{') && text.includes('"level"'))) return write(chunk, ...rest);
      // Every routine request line is written here (rate 1); the cloud keeps CLOUD_SAMPLE_RATE of them.
      meter.appLogBytes +=
        Buffer.byteLength(text) * (text.includes('"kept":"sampled"') ? CLOUD_SAMPLE_RATE : 1);
      return /"level":"(ERROR|CRITICAL)"/.test(text) ? write(chunk, ...rest) : true;
    }) as typeof stream.write;
  }
};

/**
 * Sweeps until one finds nothing to do (what the nudges and the schedule would do in the cloud);
 * the tenants reconciled on the way.
 */
const settle = async (plane: RunningControlPlane): Promise<number> => {
  await plane.processor.flushWebhooks();
  let reconciled = 0;
  for (let i = 0; i < 50; i++) {
    const summary: SweepSummary = await plane.sweeper.runNow();
    reconciled += summary.reconciled;
    if (summary.intake.applied + summary.intake.duplicates + summary.reconciled + summary.emailsSent === 0)
      break;
  }
  return reconciled;
};

/** What one phase consumed, per unit of work (a sweep, a call, a tenant, a poll). */
interface Figures {
  lambdaInvocations: number;
  gbSeconds: number;
  apiRequests: number;
  readUnits: number;
  writeUnits: number;
  sqsRequests: number;
  emails: number;
  kmsRequests: number;
  s3Requests: number;
  logBytes: number;
  accessLogBytes: number;
  cloudFrontRequests: number;
  cloudFrontBytes: number;
  directBytes: number;
  processorCalls: number;
  /** Invocations by function. */
  byFunction: Record<string, number>;
}

const gbSeconds = (ms: number, memoryMb: number) => (ms / 1000) * (memoryMb / 1024);

/** The meter's counts as billable figures, divided by `per`. */
const snapshot = async (per: number): Promise<Figures> => {
  const calls = (await processorRateLimit()).calls;
  const invocations = meter.apiRequests + meter.authorizedRequests + meter.webhookRequests + meter.sweeps;
  const accessLogBytes = (meter.apiRequests + meter.webhookRequests) * API_ACCESS_LINE_BYTES;
  return {
    lambdaInvocations: invocations / per,
    gbSeconds:
      (gbSeconds(meter.apiMs + meter.webhookMs, DEFAULT_MEMORY_MB) +
        gbSeconds(meter.sweepMs, RECONCILER_MEMORY_MB)) /
      per,
    apiRequests: (meter.apiRequests + meter.webhookRequests) / per,
    readUnits: meter.readUnits / per,
    writeUnits: meter.writeUnits / per,
    sqsRequests: meter.sqsRequests / per,
    emails: meter.emails / per,
    kmsRequests: meter.kmsRequests / per,
    s3Requests: meter.s3Requests / per,
    logBytes:
      (meter.appLogBytes +
        invocations * platformLogBytes() +
        meter.sweeps * SWEEP_EMF_BYTES +
        meter.webhookRequests * WEBHOOK_EMF_BYTES +
        accessLogBytes) /
      per,
    accessLogBytes: accessLogBytes / per,
    cloudFrontRequests: meter.cloudFrontRequests / per,
    cloudFrontBytes: meter.cloudFrontBytes / per,
    directBytes: meter.directBytes / per,
    processorCalls: (calls - processorCallsAtReset) / per,
    byFunction: Object.fromEntries(Object.entries(meter.byFunction).map(([fn, n]) => [fn, n / per])),
  };
};
let processorCallsAtReset = 0;

/** `figures` (per `per` requests) less the authorizer's runs the meter saw: a request its cache answers. */
const withoutAuthorizer = (figures: Figures, per: number): Figures => {
  const runs = meter.authorizedRequests / per;
  return {
    ...figures,
    lambdaInvocations: figures.lambdaInvocations - runs,
    gbSeconds: figures.gbSeconds - gbSeconds(meter.authorizerMs, DEFAULT_MEMORY_MB) / per,
    readUnits: figures.readUnits - meter.authorizerReadUnits / per,
    writeUnits: figures.writeUnits - meter.authorizerWriteUnits / per,
    logBytes: figures.logBytes - runs * platformLogBytes(),
    byFunction: { ...figures.byFunction, authorizer: 0 },
  };
};
const resetMeter = async () => {
  meter.reset();
  processorCallsAtReset = (await processorRateLimit()).calls;
};

const scale = (figures: Figures, factor: number): Figures => {
  const scaled = Object.fromEntries(
    Object.entries(figures).map(([key, value]) => [key, typeof value === 'number' ? value * factor : value]),
  ) as unknown as Figures;
  scaled.byFunction = Object.fromEntries(
    Object.entries(figures.byFunction).map(([fn, n]) => [fn, n * factor]),
  );
  return scaled;
};
const add = (...all: Figures[]): Figures =>
  all.reduce((sum, figures) => {
    const added = Object.fromEntries(
      Object.entries(sum).map(([key, value]) => [
        key,
        typeof value === 'number' ? value + (figures[key as keyof Figures] as number) : value,
      ]),
    ) as unknown as Figures;
    added.byFunction = { ...sum.byFunction };
    for (const [fn, n] of Object.entries(figures.byFunction))
      added.byFunction[fn] = (added.byFunction[fn] ?? 0) + n;
    return added;
  });

interface Phase {
  figures: Figures;
  /** Processor webhooks received; in the cloud each one nudges (invokes) the reconciler once. */
  webhooks: number;
  sweeps: number;
}

/** The figures of what ran since the meter was reset, with the webhooks and sweeps counted. */
const phaseSoFar = async (): Promise<Phase> => ({
  figures: await snapshot(1),
  webhooks: meter.webhookRequests,
  sweeps: meter.sweeps,
});

/**
 * A phase measured end to end. Locally nudges that arrive during a sweep are folded into one more
 * sweep; in the cloud each webhook's nudge is an invocation of its own, so each nudge not run here
 * is added as one idle sweep (measured). (Nudges now coalesce in a short window: an overstatement.)
 */
const cloudEquivalent = (phase: Phase, idleSweep: Figures): Figures =>
  add(phase.figures, scale(idleSweep, Math.max(0, phase.webhooks - phase.sweeps)));

export interface CostFigures {
  idleSweep: Figures;
  perApiCall: Figures;
  perNewTenant: Figures;
  perTenantMonthOfEvents: Figures;
  /** The daily re-check of one tenant with nothing due (every tenant, every RECHECK_HOURS). */
  perRecheck: Figures;
  /** One idle Dispatcher poll answered 304, and one heartbeat report of an unchanged Stack. */
  perPoll: Figures;
  perHeartbeat: Figures;
  eventsPerTenantMonth: number;
  sampleTenants: number;
  /** Tenants the daily re-check reconciled (the sample tenants, and any active tenant of earlier steps). */
  rechecked: number;
  /** Table bytes (items + GSI copies) of the items the sample tenants' month wrote, per tenant. */
  dynamoBytesPerTenant: number;
}

/** Items of the fleet as a whole (leases, windows, capacity): not a tenant's storage. */
const SHARED_ITEMS = /^(SWEEP|WAITLIST#WATCH|PROCESSOR_BUDGET#|CAPACITY#)/;

/** Keys (`PK|SK`) of the items written while `keysWritten` is set: the sample tenants' items. */
let keysWritten: Set<string> | undefined;

/** The keys a write command names, in the document client's form or the marshalled one. */
const writtenKeys = (input: Record<string, unknown>): string[] => {
  const plain = (value: unknown) =>
    typeof value === 'object' && value !== null && 'S' in value ? (value as { S: string }).S : value;
  const keyOf = (item: unknown) => {
    const { PK, SK } = (item ?? {}) as { PK?: unknown; SK?: unknown };
    return PK === undefined ? [] : [`${plain(PK)}|${plain(SK)}`];
  };
  const requests = Object.values((input.RequestItems ?? {}) as Record<string, unknown[]>).flat() as {
    PutRequest?: { Item: unknown };
  }[];
  const transact = (input.TransactItems ?? []) as {
    Put?: { Item: unknown };
    Update?: { Key: unknown };
  }[];
  return [
    ...keyOf(input.Item),
    ...keyOf(input.Key),
    ...requests.flatMap((request) => keyOf(request.PutRequest?.Item)),
    ...transact.flatMap((entry) => [...keyOf(entry.Put?.Item), ...keyOf(entry.Update?.Key)]),
  ];
};

/**
 * What the items written since `keysWritten` was set take in the table now: DynamoDB's size (names
 * and values; JSON's is close) plus ~100 bytes of overhead per copy, and a copy in each GSI
 * (projection ALL) the item is in.
 */
const writtenBytes = async (): Promise<number> => {
  const keys = [...(keysWritten ?? [])].filter((key) => !SHARED_ITEMS.test(key));
  keysWritten = undefined;
  let bytes = 0;
  for (const key of keys) {
    const [PK, SK] = key.split('|');
    const { Item: item } = await db().send(new GetCommand({ TableName: tableName(), Key: { PK, SK } }));
    if (!item) continue;
    const copies = 1 + (item.GSI1PK === undefined ? 0 : 1) + (item.GSI2PK === undefined ? 0 : 1);
    bytes += (JSON.stringify(item).length + 100) * copies;
  }
  return bytes;
};

/** Drives the running local control plane through the phases and measures each. */
export const measureCost = async (plane: RunningControlPlane): Promise<CostFigures> => {
  install(plane);
  // An earlier bench step may have turned delivery off; the renewal below needs it on.
  deliverWebhooksTo(plane.processor, plane.url);
  // Only this run's tenants may renew below: earlier subscriptions of the emulator are set aside.
  for (const subscription of Object.values(plane.processor.state.subscriptions))
    subscription.status = 'canceled';
  // Let whatever earlier steps left for later (graces, expiries, retries) come due now, not in a phase.
  plane.clock.advance(32 * 24 * 3600);
  await settle(plane);
  // Earlier steps' tenants still in the due index would be reconciled in the phases below and
  // billed to the sample tenants: they leave the index (this measurement's fleet is the sample).
  for (;;) {
    const { due } = await listDueTenants(new Date('9999-12-31T00:00:00Z'), 1000);
    if (due.length === 0) break;
    for (const { tenantId } of due)
      await db().send(
        new UpdateCommand({
          TableName: tableName(),
          Key: keys.tenant(tenantId),
          UpdateExpression: 'REMOVE dueAt, GSI2PK, GSI2SK',
        }),
      );
  }

  // 1. The scheduled sweep with nothing due (every minute, whatever the number of tenants).
  await resetMeter();
  for (let i = 0; i < 5; i++) await plane.sweeper.runNow();
  const idleSweep = await snapshot(5);

  // 2. New tenants: slug, checkout, payment, and what the events make the sweep do.
  const tokens: string[] = [];
  keysWritten = new Set();
  await resetMeter();
  for (let i = 0; i < SAMPLE_TENANTS; i++) {
    const login = `cost-${randomUUID().slice(0, 8)}`;
    tokens.push(await paidCheckout(plane, login));
  }
  await settle(plane);
  const onboarding = await phaseSoFar();
  const perNewTenant = scale(cloudEquivalent(onboarding, idleSweep), 1 / SAMPLE_TENANTS);

  // 3. The tenant console's reads.
  await resetMeter();
  for (let round = 0; round < READ_ROUNDS; round++) {
    for (const token of tokens) {
      for (const path of READ_PATHS) {
        const response = await fetch(`${plane.url}${path}`, {
          headers: { authorization: `Bearer ${token}` },
        });
        if (response.status !== 200) throw new Error(`${path} answered ${response.status}`);
      }
    }
  }
  const perApiCall = await snapshot(meter.apiRequests);

  // 4. The Dispatcher of one Stack at rest: polls answered 304, and heartbeats of an unchanged Stack.
  const issued = await fetch(`${plane.url}/v1/stacks/primary/dispatcher-credential`, {
    method: 'POST',
    headers: { authorization: `Bearer ${tokens[0]}` },
  });
  if (issued.status !== 201)
    throw new Error(`no Dispatcher credential: ${issued.status} ${await issued.text()}`);
  const credential = ((await issued.json()) as { credential: string }).credential;
  const dispatcher = { authorization: `Bearer ${credential}` };
  const first = await fetch(`${plane.url}/v1/dispatcher/desired-state`, { headers: dispatcher });
  await first.arrayBuffer();
  const etag = first.headers.get('etag') ?? '';
  // The ETag names the desired state's version (`"v<version>"`): the Dispatcher reports it applied.
  const version = Number(/v(\d+)/.exec(etag)?.[1] ?? Number.NaN);
  if (!Number.isInteger(version)) throw new Error(`the desired state's ETag ${etag} names no version`);
  const report = JSON.stringify({ appliedVersion: version, health: 'healthy', activeRuns: 0 });
  const heartbeat = () =>
    fetch(`${plane.url}/v1/dispatcher/observed-state`, {
      method: 'PUT',
      headers: { ...dispatcher, 'content-type': 'application/json' },
      body: report,
    });
  await heartbeat();
  await resetMeter();
  for (let i = 0; i < POLLS; i++) {
    const answer = await fetch(`${plane.url}/v1/dispatcher/desired-state`, {
      headers: { ...dispatcher, 'if-none-match': etag },
    });
    if (answer.status !== 304) throw new Error(`an idle poll answered ${answer.status}, not 304`);
  }
  const perPoll = await snapshot(POLLS);
  await resetMeter();
  for (let i = 0; i < POLLS; i++) {
    const answer = await heartbeat();
    if (answer.status !== 200)
      throw new Error(`a heartbeat answered ${answer.status}: ${await answer.text()}`);
  }
  // The reference Dispatcher sends its heartbeat right after its poll, within the authorizer's
  // cache (AUTHORIZER_CACHE_SECONDS): the authorizer does not run for it.
  const perHeartbeat = withoutAuthorizer(await snapshot(POLLS), POLLS);

  // 5. A month passes: every subscription renews and is charged; its events flow through intake and the sweep.
  await resetMeter();
  plane.clock.advance(32 * 24 * 3600);
  await settle(plane);
  const renewal = await phaseSoFar();
  const perTenantMonthOfEvents = scale(cloudEquivalent(renewal, idleSweep), 1 / SAMPLE_TENANTS);

  // 6. A day passes with nothing due: the daily re-check of every tenant (the renewal's one is in 5).
  await resetMeter();
  plane.clock.advance(RECHECK_HOURS * 3600 + 60);
  const rechecked = await settle(plane);
  const recheck = await phaseSoFar();
  // The sweeps that found the tenants due are the schedule's own (billed as idle sweeps): only the
  // work is the tenants'. Per tenant reconciled: the table may hold active tenants of earlier steps.
  const perRecheck = scale(
    add(recheck.figures, scale(idleSweep, -recheck.sweeps)),
    1 / Math.max(1, rechecked),
  );

  const added = await writtenBytes();

  return {
    idleSweep,
    perApiCall,
    perNewTenant,
    perTenantMonthOfEvents,
    perRecheck,
    perPoll,
    perHeartbeat,
    eventsPerTenantMonth: renewal.webhooks / SAMPLE_TENANTS,
    sampleTenants: SAMPLE_TENANTS,
    dynamoBytesPerTenant: added / SAMPLE_TENANTS,
    rechecked,
  };
};

/** Idle Dispatcher polls and heartbeats a Stack makes a day (functions/core/dispatcher.ts). */
export const pollsPerStackDay = 86_400 / ((POLL_IDLE_MIN_SECONDS + POLL_IDLE_MAX_SECONDS) / 2);
export const heartbeatsPerStackDay = 86_400 / HEARTBEAT_SECONDS;

/**
 * A Plan Change's transitions and task runs. Measured by `npm run bench` (its immediate change on
 * the local Step Functions, each Dispatcher step taking one look: `usePlanChangeShape`), which
 * replaces the first guess from statemachines/plan-change.asl.json (each task but the roll-back
 * once, with its Route choice and its Pace wait; then Done), an undercount: the measured path has
 * 26 transitions and 10 task runs where the guess says 22 and 7.
 */
export const planChangeShape: { tasks: number; transitions: number; measured: boolean } = (() => {
  const definition = JSON.parse(
    readFileSync(path.join(REPO_ROOT, 'statemachines', 'plan-change.asl.json'), 'utf8'),
  ) as { States: Record<string, { Type: string }> };
  const tasks = Object.entries(definition.States).filter(
    ([name, state]) => state.Type === 'Task' && name !== 'RollBack',
  ).length;
  return { tasks, transitions: 3 * tasks + 1, measured: false };
})();

/** What an immediate change measured (its states entered): the shape the bill uses from now on. */
export const usePlanChangeShape = (entered: Record<string, number>, taskStates: readonly string[]): void => {
  planChangeShape.transitions = Object.values(entered).reduce((sum, count) => sum + count, 0);
  planChangeShape.tasks = taskStates.reduce((sum, name) => sum + (entered[name] ?? 0), 0);
  planChangeShape.measured = true;
};

/** One tenant's day at a fleet of `tenants`, from the measured figures and the assumptions. */
export const tenantDay = (figures: CostFigures, tenants: number): TenantDayUsage => {
  const stacks = USAGE.stacksPerTenant;
  const planChangesPerDay = USAGE.planChangesPerTenantMonth / DAYS_PER_MONTH;
  const busyPolls = planChangesPerDay * (USAGE.planChangeBusySeconds / POLL_SOON_SECONDS);
  const day = add(
    scale(figures.idleSweep, USAGE.scheduledSweepsPerDay / tenants),
    scale(figures.perApiCall, USAGE.apiCallsPerTenantPerDay),
    scale(figures.perNewTenant, USAGE.newTenantsPerMonth / DAYS_PER_MONTH),
    scale(figures.perTenantMonthOfEvents, 1 / DAYS_PER_MONTH),
    scale(figures.perRecheck, 24 / RECHECK_HOURS),
    // A busy Stack's polls answer 200 rather than 304: billed here as idle polls.
    scale(figures.perPoll, stacks * pollsPerStackDay + busyPolls),
    scale(figures.perHeartbeat, stacks * heartbeatsPerStackDay),
  );
  const planChangeInvocations = planChangesPerDay * planChangeShape.tasks;
  // X-Ray: each traced function's invocations across the fleet in a day, sampled per function.
  const fleetByFunction = Object.values(day.byFunction).map((n) => Math.max(0, n) * tenants);
  const traced = tracesRecordedPerDay([...fleetByFunction, planChangeInvocations * tenants]) / tenants;
  const consoleDay = consoleTenantDay(
    { requests: day.cloudFrontRequests, bytes: day.cloudFrontBytes },
    tenants,
  );
  return {
    apiRequests: day.apiRequests,
    lambdaInvocations: day.lambdaInvocations + planChangeInvocations,
    lambdaGbSeconds:
      day.gbSeconds + planChangeInvocations * USAGE.planChangeTaskSeconds * (DEFAULT_MEMORY_MB / 1024),
    dynamoReadUnits: day.readUnits,
    dynamoWriteUnits: day.writeUnits,
    sqsRequests: day.sqsRequests,
    emails: day.emails,
    stepFunctionTransitions: planChangesPerDay * planChangeShape.transitions,
    kmsRequests: day.kmsRequests + stacks * USAGE.credentialReadsPerStackDay,
    // Secret reads are per warm function instance, not per tenant: the model's fixed line bills them.
    secretsManagerCalls: 0,
    logBytes: day.logBytes + planChangeInvocations * platformLogBytes(),
    accessLogBytes: day.accessLogBytes,
    xrayTracesRecorded: traced,
    cloudFrontRequests: consoleDay.cloudFrontRequests,
    cloudFrontBytesOut: consoleDay.cloudFrontBytesOut,
    s3Requests: day.s3Requests + consoleDay.s3Requests,
    apiBytesOut: day.directBytes,
    processorCalls: day.processorCalls,
  };
};

export const fleetShape = (figures: CostFigures, tenants: number): FleetShape => ({
  tenants,
  dynamoBytesPerTenant: figures.dynamoBytesPerTenant,
  s3BytesPerTenant: consoleTenantDay({ requests: 0, bytes: 0 }, tenants).s3BytesPerTenant,
});

const describe = (label: string, f: Figures) =>
  `  ${label.padEnd(38)} ${f.lambdaInvocations.toFixed(2).padStart(7)} inv ${(f.gbSeconds * 1000).toFixed(1).padStart(8)} GB-ms ${f.readUnits.toFixed(1).padStart(7)} RRU ${f.writeUnits.toFixed(1).padStart(6)} WRU ${f.sqsRequests.toFixed(1).padStart(5)} SQS ${f.apiRequests.toFixed(1).padStart(5)} API ${f.emails.toFixed(2).padStart(5)} mail ${f.processorCalls.toFixed(2).padStart(5)} proc ${(f.logBytes / 1000).toFixed(2).padStart(7)} KB log`;

/**
 * `npm run bench`: measures, prints the monthly bill for 1,000 and 100,000 tenants, and the
 * per-1,000 figure at 100,000 with its verdict.
 */
export const printCost = async (
  plane: RunningControlPlane,
  verdict: (ok: boolean) => string = (ok) => (ok ? 'meets target' : 'MISSES TARGET'),
): Promise<Bill[]> => {
  const figures = await measureCost(plane);
  const fixed = fixedResources();
  console.log(
    `\nWhat it costs to run: the cost model of test/bench/cost-model.ts, AWS on-demand list prices in ${PRICES.region} as of ${PRICES.asOf}, free tiers excluded`,
  );
  console.log(
    `Measured on this machine (local durations stand in for Lambda's; ${figures.sampleTenants} sample tenants):`,
  );
  console.log(describe('idle scheduled sweep', figures.idleSweep));
  console.log(describe('tenant API call (with authorizer)', figures.perApiCall));
  console.log(describe('new tenant (slug, checkout, events)', figures.perNewTenant));
  console.log(
    describe(
      `a tenant's month of events (${figures.eventsPerTenantMonth.toFixed(1)})`,
      figures.perTenantMonthOfEvents,
    ),
  );
  console.log(describe(`a tenant's daily re-check (${figures.rechecked} tenants)`, figures.perRecheck));
  console.log(describe('Dispatcher idle poll (304)', figures.perPoll));
  console.log(describe('Dispatcher heartbeat (unchanged)', figures.perHeartbeat));
  console.log(
    `  table bytes a tenant's first month adds (items + GSI copies): ${(figures.dynamoBytesPerTenant / 1000).toFixed(1)} KB`,
  );
  console.log(
    `Assumptions: ${USAGE.apiCallsPerTenantPerDay} console API calls and ${USAGE.consoleVisitsPerTenantPerDay} console visit per tenant a day, ` +
      `${USAGE.newTenantsPerMonth * 100}% new tenants a month, ${USAGE.stacksPerTenant} Stacks per tenant each polling ${pollsPerStackDay.toFixed(0)} times a day ` +
      `(idle interval ${POLL_IDLE_MIN_SECONDS}-${POLL_IDLE_MAX_SECONDS} s; every poll runs the authorizer, whose cache lasts 30 s) and reporting ${heartbeatsPerStackDay} heartbeats (each right after a poll: no authorizer run), ` +
      `the daily re-check of every tenant, the sweep every minute (${USAGE.scheduledSweepsPerDay.toLocaleString('en')} a day), ` +
      `${USAGE.planChangesPerTenantMonth * 100}% of tenants changing Plan a month (${planChangeShape.transitions} transitions and ${planChangeShape.tasks} task runs each, ${planChangeShape.measured ? 'measured above' : 'from the ASL'}), ` +
      `one export a tenant a month, the console's ${CONSOLE_FILES.count} files (${(CONSOLE_FILES.bytes / 1000).toFixed(0)} KB) fetched on each visit, memory ${DEFAULT_MEMORY_MB} MB (API) / ${RECONCILER_MEMORY_MB} MB (reconciler).`,
  );
  console.log(`Fixed resources: ${fixed.source}.`);
  const bills = TENANT_COUNTS.map((tenants) =>
    monthlyBill(tenantDay(figures, tenants), fleetShape(figures, tenants), fixed),
  );
  for (const bill of bills) {
    console.log('');
    printBill(bill);
  }
  const atScale = bills.at(-1);
  if (atScale)
    console.log(
      `per 1,000 tenants a month at ${atScale.tenants.toLocaleString('en')}: $${atScale.perThousandTenantsUsd.toFixed(2)} (target <= $${PER_THOUSAND_TARGET_USD})  ${verdict(atScale.perThousandTenantsUsd <= PER_THOUSAND_TARGET_USD)}`,
    );
  return bills;
};
