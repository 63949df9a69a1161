import { randomUUID } from 'node:crypto';
import { SESv2Client } from '@aws-sdk/client-sesv2';
import { SQSClient } from '@aws-sdk/client-sqs';
import type { SweepSummary } from '../../functions/reconciler/sweep.ts';
import { db } from '../../functions/store/client.ts';
import { DEFAULT_MEMORY_MB } from '../../lib/infra/constructs/lambda.ts';
import { RECONCILER_MEMORY_MB } from '../../lib/infra/constructs/reconciler.ts';
import type { LocalRequest } from '../../lib/local/http-adapter.ts';
import { deliverWebhooksTo } from '../../lib/local/processor/local.ts';
import type { RunningControlPlane } from '../../lib/local/server.ts';
import { routes } from '../../lib/routes.ts';
import { paidCheckout } from './plane.ts';

/**
 * What it costs to run: the monthly AWS bill at on-demand list prices, computed from what this run
 * measures on the local control plane (Lambda durations, DynamoDB capacity units, SQS requests,
 * API requests, SES messages) and the usage assumptions below. Free tiers are left out.
 */

/**
 * On-demand list prices in eu-west-1 (Ireland), USD, as published by AWS and known to us as of
 * 2025-06-01 (DynamoDB on-demand after its November 2024 reduction). Check the AWS pricing pages
 * before quoting a figure; change them here.
 */
export const PRICES = {
  region: 'eu-west-1',
  asOf: '2025-06-01',
  lambdaPerMillionRequests: 0.2,
  /** Arm (Graviton): every function is arm64. */
  lambdaPerGbSecondArm: 0.0000133334,
  httpApiPerMillionRequests: 1.11,
  sqsPerMillionRequests: 0.4,
  sesPerThousandEmails: 0.1,
  dynamoPerMillionReadUnits: 0.1415,
  dynamoPerMillionWriteUnits: 0.7068,
  secretPerMonth: 0.4,
  alarmPerMonth: 0.1,
  dashboardPerMonth: 3,
} as const;

/** Usage assumptions (not measured: they describe how tenants use the service). */
export const USAGE = {
  /** Session API calls a tenant's app makes a day, spread evenly over me, billing status and plans. */
  apiCallsPerTenantPerDay: 20,
  /** Share of the tenants that are new in a month (sign-up, slug, checkout, first payment). */
  newTenantsPerMonth: 0.05,
  daysPerMonth: 30,
  /** The schedule runs the sweep every minute. */
  scheduledSweepsPerMonth: 60 * 24 * 30,
  /** Fixed resources of the stack. */
  secrets: 3,
  alarms: 9,
  dashboards: 1,
} as const;

const TENANT_COUNTS = [1_000, 100_000] as const;
const SAMPLE_TENANTS = 10;
const READ_ROUNDS = 5;
const READ_PATHS = ['/v1/me', '/v1/billing/status', '/v1/billing/plans'] as const;
const READ_COMMANDS = /^(Get|BatchGet|Query|Scan|TransactGet)/;

/** Everything the run counts, reset between phases. */
class Meter {
  readUnits = 0;
  writeUnits = 0;
  sqsRequests = 0;
  emails = 0;
  /** API requests by whether they go through the authorizer (2 Lambda invocations) or not (1). */
  apiRequests = 0;
  authorizedRequests = 0;
  webhookRequests = 0;
  /** Wall time of the requests (authorizer + handler), ms. */
  apiMs = 0;
  webhookMs = 0;
  sweeps = 0;
  sweepMs = 0;

  reset(): void {
    Object.assign(this, new Meter());
  }
}

const meter = new Meter();
let installed = false;

const sessionPaths = new Set(routes.filter((r) => r.auth === 'session').map((r) => `${r.method} ${r.path}`));

/**
 * Meters the running control plane from the bench's side, without touching functions/: every
 * DynamoDB call asks for its consumed capacity (ReturnConsumedCapacity=TOTAL, tables and indexes)
 * and adds it up; SQS and SES calls are counted; API requests and sweeps are timed.
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
      else meter.writeUnits += units;
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

  const dispatch = plane.gateway.dispatch.bind(plane.gateway);
  plane.gateway.dispatch = async (request: LocalRequest) => {
    const started = performance.now();
    const response = await dispatch(request);
    const ms = performance.now() - started;
    const pathname = new URL(request.url, 'http://localhost').pathname;
    if (pathname === '/v1/webhooks/processor') {
      meter.webhookRequests++;
      meter.webhookMs += ms;
    } else if (pathname.startsWith('/v1/')) {
      meter.apiRequests++;
      meter.apiMs += ms;
      if (sessionPaths.has(`${request.method.toUpperCase()} ${pathname}`)) meter.authorizedRequests++;
    }
    return response;
  };
  const runNow = plane.sweeper.runNow.bind(plane.sweeper);
  plane.sweeper.runNow = async () => {
    const started = performance.now();
    const summary = await runNow();
    meter.sweeps++;
    meter.sweepMs += performance.now() - started;
    return summary;
  };
};

/** Sweeps until one finds nothing to do (what the nudges and the schedule would do in the cloud). */
const settle = async (plane: RunningControlPlane): Promise<void> => {
  await plane.processor.flushWebhooks();
  for (let i = 0; i < 50; i++) {
    const summary: SweepSummary = await plane.sweeper.runNow();
    if (summary.intake.applied + summary.intake.duplicates + summary.reconciled + summary.emailsSent === 0)
      return;
  }
};

/** What one phase consumed, per unit of work (a sweep, a call, a tenant). */
interface Figures {
  lambdaInvocations: number;
  gbSeconds: number;
  apiRequests: number;
  readUnits: number;
  writeUnits: number;
  sqsRequests: number;
  emails: number;
}

const gbSeconds = (ms: number, memoryMb: number) => (ms / 1000) * (memoryMb / 1024);

/** The meter's counts as billable figures; sweeps billed as `sweepInvocations` cloud invocations. */
const snapshot = (per: number): Figures => ({
  lambdaInvocations:
    (meter.apiRequests + meter.authorizedRequests + meter.webhookRequests + meter.sweeps) / per,
  gbSeconds:
    (gbSeconds(meter.apiMs + meter.webhookMs, DEFAULT_MEMORY_MB) +
      gbSeconds(meter.sweepMs, RECONCILER_MEMORY_MB)) /
    per,
  apiRequests: (meter.apiRequests + meter.webhookRequests) / per,
  readUnits: meter.readUnits / per,
  writeUnits: meter.writeUnits / per,
  sqsRequests: meter.sqsRequests / per,
  emails: meter.emails / per,
});

const scale = (figures: Figures, factor: number): Figures =>
  Object.fromEntries(
    Object.entries(figures).map(([key, value]) => [key, value * factor]),
  ) as unknown as Figures;
const add = (...all: Figures[]): Figures =>
  all.reduce(
    (sum, figures) =>
      Object.fromEntries(
        Object.entries(sum).map(([key, value]) => [key, value + figures[key as keyof Figures]]),
      ) as unknown as Figures,
  );

interface Phase {
  figures: Figures;
  /** Processor webhooks received; in the cloud each one nudges (invokes) the reconciler once. */
  webhooks: number;
  sweeps: number;
}

/**
 * A phase measured end to end. Locally nudges that arrive during a sweep are folded into one more
 * sweep; in the cloud each webhook's nudge is an invocation of its own, so each nudge not run here
 * is added as one idle sweep (measured).
 */
const cloudEquivalent = (phase: Phase, idleSweep: Figures): Figures =>
  add(phase.figures, scale(idleSweep, Math.max(0, phase.webhooks - phase.sweeps)));

export interface CostFigures {
  idleSweep: Figures;
  perApiCall: Figures;
  perNewTenant: Figures;
  perTenantMonthOfEvents: Figures;
  eventsPerTenantMonth: number;
  sampleTenants: number;
}

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

  // 1. The scheduled sweep with nothing due (every minute, whatever the number of tenants).
  meter.reset();
  for (let i = 0; i < 5; i++) await plane.sweeper.runNow();
  const idleSweep = snapshot(5);

  // 2. New tenants: slug, checkout, payment, and what the events make the sweep do.
  const tokens: string[] = [];
  meter.reset();
  for (let i = 0; i < SAMPLE_TENANTS; i++) {
    const login = `cost-${randomUUID().slice(0, 8)}`;
    tokens.push(await paidCheckout(plane, login));
  }
  await settle(plane);
  const onboarding: Phase = { figures: snapshot(1), webhooks: meter.webhookRequests, sweeps: meter.sweeps };
  const perNewTenant = scale(cloudEquivalent(onboarding, idleSweep), 1 / SAMPLE_TENANTS);

  // 3. The tenant app's reads.
  meter.reset();
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
  const perApiCall = snapshot(meter.apiRequests);

  // 4. A month passes: every subscription renews and is charged; its events flow through intake and the sweep.
  meter.reset();
  plane.clock.advance(32 * 24 * 3600);
  await settle(plane);
  const renewal: Phase = { figures: snapshot(1), webhooks: meter.webhookRequests, sweeps: meter.sweeps };
  const perTenantMonthOfEvents = scale(cloudEquivalent(renewal, idleSweep), 1 / SAMPLE_TENANTS);

  return {
    idleSweep,
    perApiCall,
    perNewTenant,
    perTenantMonthOfEvents,
    eventsPerTenantMonth: renewal.webhooks / SAMPLE_TENANTS,
    sampleTenants: SAMPLE_TENANTS,
  };
};

/** Monthly usage for `tenants` tenants. */
const monthlyUsage = (figures: CostFigures, tenants: number): Figures =>
  add(
    scale(figures.idleSweep, USAGE.scheduledSweepsPerMonth),
    scale(figures.perApiCall, tenants * USAGE.apiCallsPerTenantPerDay * USAGE.daysPerMonth),
    scale(figures.perTenantMonthOfEvents, tenants),
    scale(figures.perNewTenant, tenants * USAGE.newTenantsPerMonth),
  );

export const monthlyBill = (usage: Figures): Record<string, number> => ({
  'Lambda requests': (usage.lambdaInvocations / 1e6) * PRICES.lambdaPerMillionRequests,
  'Lambda duration (GB-s)': usage.gbSeconds * PRICES.lambdaPerGbSecondArm,
  'API Gateway (HTTP API)': (usage.apiRequests / 1e6) * PRICES.httpApiPerMillionRequests,
  'DynamoDB reads (on-demand)': (usage.readUnits / 1e6) * PRICES.dynamoPerMillionReadUnits,
  'DynamoDB writes (on-demand)': (usage.writeUnits / 1e6) * PRICES.dynamoPerMillionWriteUnits,
  'SQS requests': (usage.sqsRequests / 1e6) * PRICES.sqsPerMillionRequests,
  'SES emails': (usage.emails / 1000) * PRICES.sesPerThousandEmails,
  'Secrets, alarms, dashboard (fixed)':
    USAGE.secrets * PRICES.secretPerMonth +
    USAGE.alarms * PRICES.alarmPerMonth +
    USAGE.dashboards * PRICES.dashboardPerMonth,
});

const describe = (label: string, f: Figures) =>
  `  ${label.padEnd(34)} ${f.lambdaInvocations.toFixed(2).padStart(7)} inv ${(f.gbSeconds * 1000).toFixed(1).padStart(8)} GB-ms ${f.readUnits.toFixed(1).padStart(7)} RRU ${f.writeUnits.toFixed(1).padStart(6)} WRU ${f.sqsRequests.toFixed(1).padStart(5)} SQS ${f.apiRequests.toFixed(1).padStart(5)} API ${f.emails.toFixed(2).padStart(5)} mail`;

/** `npm run bench`: measures and prints the monthly bill for 1,000 and 100,000 tenants. */
export const printCost = async (plane: RunningControlPlane): Promise<void> => {
  const figures = await measureCost(plane);
  console.log(
    `\nWhat it costs to run: AWS on-demand list prices in ${PRICES.region} as of ${PRICES.asOf}, free tiers excluded`,
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
  console.log(
    `Assumptions: ${USAGE.apiCallsPerTenantPerDay} API calls per tenant a day (me, billing status, plans), ` +
      `${USAGE.newTenantsPerMonth * 100}% new tenants a month, the sweep every minute (${USAGE.scheduledSweepsPerMonth.toLocaleString('en')} a month), ` +
      `one renewal a tenant a month with the events measured above, memory ${DEFAULT_MEMORY_MB} MB (API) / ${RECONCILER_MEMORY_MB} MB (reconciler).`,
  );
  const bills = TENANT_COUNTS.map((tenants) => monthlyBill(monthlyUsage(figures, tenants)));
  console.log(
    `${'monthly (USD)'.padEnd(38)} ${TENANT_COUNTS.map((t) => `${t.toLocaleString('en')} tenants`.padStart(16)).join('')}`,
  );
  for (const item of Object.keys(bills[0] ?? {})) {
    console.log(
      `  ${item.padEnd(36)} ${bills.map((bill) => (bill[item] ?? 0).toFixed(2).padStart(16)).join('')}`,
    );
  }
  const totals = bills.map((bill) => Object.values(bill).reduce((a, b) => a + b, 0));
  console.log(`  ${'total'.padEnd(36)} ${totals.map((t) => t.toFixed(2).padStart(16)).join('')}`);
  bills.forEach((bill, i) => {
    const [item, amount] = Object.entries(bill).sort(([, a], [, b]) => b - a)[0] ?? ['', 0];
    const total = totals[i] ?? 1;
    console.log(
      `  at ${TENANT_COUNTS[i]?.toLocaleString('en')} tenants the largest item is ${item}: ${((amount / total) * 100).toFixed(0)}% of the bill ($${(total / (TENANT_COUNTS[i] ?? 1)).toFixed(4)} per tenant)`,
    );
  });
  console.log(
    "  Not included: DynamoDB storage and backups, CloudWatch Logs ingestion and storage, data transfer, the processor's own fees.",
  );
};
