import { DEFAULT_MEMORY_MB } from '../../../lib/infra/constructs/lambda.ts';
import { RECONCILER_MEMORY_MB } from '../../../lib/infra/constructs/reconciler.ts';
import { consoleTenantDay, USAGE } from '../cost.ts';
import {
  API_ACCESS_LINE_BYTES,
  DAYS_PER_MONTH,
  fixedResources,
  lambdaSystemLogBytes,
  type TenantDayUsage,
} from '../cost-model.ts';
import { SCHEDULE_S } from './model.ts';
import type { ScaleResult } from './simulate.ts';

/** Scheduled sweeps a day in the cloud (EventBridge, every minute), whatever the fleet. */
export const SCHEDULED_SWEEPS_PER_DAY = 86_400 / SCHEDULE_S;
/**
 * Price lookups a day in the cloud: the catalog port keeps a Plan's price 5 minutes of Clock time
 * (functions/ports/processor/catalog.ts), 3 Plans, in a warm sweep. Here the Clock runs thousands
 * of times faster, so the bench's own lookups are an artifact of compression: they are counted
 * apart and replaced by the cloud's.
 */
export const CLOUD_PRICE_LOOKUPS_PER_DAY = 3 * (86_400 / 300);
/**
 * Traces the default X-Ray rule records: 5% of invocations, plus the reservoir of one a second
 * for each function with steady traffic (authorizer, desired state, observed state, webhook, sweep).
 */
const XRAY_RATE = 0.05;
const XRAY_STEADY_FUNCTIONS = 5;
/**
 * The tenant app's reads a tenant makes a day (me, billing status, plans): an assumption, the one
 * `npm run bench` makes; their unit costs are measured.
 */
export const TENANT_API_CALLS_PER_DAY = USAGE.apiCallsPerTenantPerDay;
/** Plan Changes a tenant makes a day: the 2% a month, the assumption `npm run bench` makes. */
export const PLAN_CHANGES_PER_TENANT_DAY = USAGE.planChangesPerTenantMonth / DAYS_PER_MONTH;
const f = (x: number, digits = 1) => x.toFixed(digits);
/** Table bytes per tenant over the items' JSON: attribute overhead and the two indexes' copies. */
const TABLE_OVERHEAD = 1.25;

export interface UsageParts {
  usage: TenantDayUsage;
  /** The parts, per tenant-day, for the printout. */
  parts: {
    label: string;
    api: number;
    invocations: number;
    reads: number;
    writes: number;
    calls: number;
    logBytes: number;
  }[];
  priceLookups: number;
  /** The console, CloudFront and S3 lines' basis (shared assumptions, cost.ts). */
  consoleBasis: string;
}

/** A tenant-day in a fleet of `tenants`, from the measured day (per tenant) and the fleet's fixed rhythm (per fleet). */
export const tenantDayUsage = (result: ScaleResult, tenants: number): UsageParts => {
  const n = result.tenants;
  const d = result.day;
  const p = result.polls;
  const priceLookups = result.callsByPath['GET /v1/prices'] ?? 0;
  // The day as run: its requests, webhooks, sweeps (each webhook nudges one cloud invocation, at most).
  const day = {
    label: 'billing day (events, re-checks, checkouts, Plan Changes)',
    api: d.apiRequests / n,
    invocations: (d.apiRequests + d.authorizedRequests + d.webhookRequests) / n,
    reads: d.readUnits / n,
    writes: d.writeUnits / n,
    calls: (d.processorCalls - priceLookups) / n,
    logBytes: d.logBytes / n,
  };
  const pollsPerTenant = p.pollsPerDay / n;
  const beatsPerTenant = p.heartbeatsPerDay / n;
  const polls = {
    label: `Dispatcher polls (${pollsPerTenant.toFixed(1)}) and heartbeats (${beatsPerTenant.toFixed(1)})`,
    api: pollsPerTenant + beatsPerTenant,
    invocations:
      pollsPerTenant * (1 + p.perPoll.authorizedRequests) +
      beatsPerTenant * (1 + p.perHeartbeat.authorizedRequests),
    reads: pollsPerTenant * p.perPoll.readUnits + beatsPerTenant * p.perHeartbeat.readUnits,
    writes: pollsPerTenant * p.perPoll.writeUnits + beatsPerTenant * p.perHeartbeat.writeUnits,
    calls: 0,
    logBytes: pollsPerTenant * p.perPoll.logBytes + beatsPerTenant * p.perHeartbeat.logBytes,
  };
  const sweepsPerTenant = SCHEDULED_SWEEPS_PER_DAY / tenants;
  const schedule = {
    label: `scheduled sweeps (${SCHEDULED_SWEEPS_PER_DAY} a day / ${tenants.toLocaleString('en')}) and nudges`,
    api: 0,
    invocations: sweepsPerTenant + d.webhookRequests / n,
    reads: sweepsPerTenant * result.idleSweep.readUnits,
    writes: sweepsPerTenant * result.idleSweep.writeUnits,
    calls: CLOUD_PRICE_LOOKUPS_PER_DAY / tenants,
    logBytes: (sweepsPerTenant + d.webhookRequests / n) * (result.idleSweep.logBytes + result.sweepLineBytes),
  };
  const t = result.tenantApi.perCall;
  const app = {
    label: `tenant app reads (${TENANT_API_CALLS_PER_DAY} a day, assumed)`,
    api: TENANT_API_CALLS_PER_DAY,
    invocations: TENANT_API_CALLS_PER_DAY * (1 + t.authorizedRequests),
    reads: TENANT_API_CALLS_PER_DAY * t.readUnits,
    writes: TENANT_API_CALLS_PER_DAY * t.writeUnits,
    calls: TENANT_API_CALLS_PER_DAY * t.processorCalls,
    logBytes: TENANT_API_CALLS_PER_DAY * t.logBytes,
  };
  // The Plan Changes' tasks: one Lambda invocation each (their table units, processor calls and
  // log lines are in the day's, as they ran in it). A run has at least 3 changes, more than 2% of a
  // small fleet a month: a change's tasks and transitions are measured, the rate is the issue's.
  const changes = result.planChanges.length;
  const perChange = (count: number) => (changes > 0 ? count / changes : 0);
  const tasks = {
    label: `Plan Change tasks (${f(perChange(d.taskInvocations))} a change x ${f(PLAN_CHANGES_PER_TENANT_DAY, 5)} changes)`,
    api: 0,
    invocations: perChange(d.taskInvocations) * PLAN_CHANGES_PER_TENANT_DAY,
    reads: 0,
    writes: 0,
    calls: 0,
    logBytes: 0,
  };
  const parts = [day, tasks, polls, app, schedule];
  const sum = (key: 'api' | 'invocations' | 'reads' | 'writes' | 'calls' | 'logBytes') =>
    parts.reduce((total, part) => total + part[key], 0);
  const apiRequests = sum('api');
  const lambdaInvocations = sum('invocations');
  const gb = (ms: number, memoryMb: number) => (ms / 1000) * (memoryMb / 1024);
  const accessLogBytes = apiRequests * API_ACCESS_LINE_BYTES;
  // The console's session calls through CloudFront: the day's (checkouts, Plan Changes) as counted,
  // and the tenant app's reads at their measured size; its visits and the exports from cost.ts.
  const consoleDay = consoleTenantDay(
    {
      requests: d.sessionRequests / n + TENANT_API_CALLS_PER_DAY,
      bytes: d.sessionBytes / n + TENANT_API_CALLS_PER_DAY * t.sessionBytes,
    },
    tenants,
  );
  const usage: TenantDayUsage = {
    apiRequests,
    lambdaInvocations,
    lambdaGbSeconds:
      gb(
        d.apiMs / n + pollsPerTenant * p.perPoll.apiMs + beatsPerTenant * p.perHeartbeat.apiMs,
        DEFAULT_MEMORY_MB,
      ) +
      gb(perChange(d.taskMs) * PLAN_CHANGES_PER_TENANT_DAY, DEFAULT_MEMORY_MB) +
      gb(d.sweepMs / n + sweepsPerTenant * result.idleSweep.sweepMs, RECONCILER_MEMORY_MB),
    dynamoReadUnits: sum('reads'),
    dynamoWriteUnits: sum('writes'),
    sqsRequests: d.sqsRequests / n + sweepsPerTenant * result.idleSweep.sqsRequests,
    emails: d.emails / n,
    // The state transitions of a Plan Change's execution (the stand-in's event log), at the rate.
    stepFunctionTransitions: perChange(result.stepFunctionTransitions) * PLAN_CHANGES_PER_TENANT_DAY,
    kmsRequests: d.kmsRequests / n,
    secretsManagerCalls: d.secretsCalls / n,
    logBytes: sum('logBytes') + lambdaInvocations * lambdaSystemLogBytes(fixedResources()) + accessLogBytes,
    accessLogBytes,
    xrayTracesRecorded: XRAY_RATE * lambdaInvocations + (XRAY_STEADY_FUNCTIONS * 86_400) / tenants,
    cloudFrontRequests: consoleDay.cloudFrontRequests,
    cloudFrontBytesOut: consoleDay.cloudFrontBytesOut,
    s3Requests: consoleDay.s3Requests,
    processorCalls: sum('calls'),
  };
  return { usage, parts, priceLookups, consoleBasis: consoleDay.basis };
};

/** Exports kept and the console's files (cost.ts's assumptions), per tenant. */
export const s3BytesPerTenant = (tenants: number): number =>
  consoleTenantDay({ requests: 0, bytes: 0 }, tenants).s3BytesPerTenant;

export const dynamoBytesPerTenant = (result: ScaleResult): number =>
  result.itemBytesPerTenant * TABLE_OVERHEAD;
