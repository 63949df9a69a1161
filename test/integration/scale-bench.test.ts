import { describe, expect, it } from 'vitest';
import { logger } from '#ports/logger.ts';
import { tenantDayUsage } from '../bench/scale/report.ts';
import { runScale, type ScaleResult } from '../bench/scale/simulate.ts';

/*
 * The scale bench's day on 50 tenants (issue 23): seeded in bulk, one billing day compressed into
 * a few seconds through the real handlers and sweep, against the real processor limit (test mode,
 * 25/s). Its figures are counts of what the code did; here they are checked against each other and
 * against the stored state, so a bench that counted nothing, or counted wrong, fails.
 */
describe('the scale bench on 50 tenants', () => {
  it('counts a billing day that matches the processor, within the limit, with every unit above zero', async () => {
    // The real limit of a test key (test-environment.ts lifts it for other tests), and our logger's lines counted.
    // The bench starts a control plane of its own, which points this process's environment at
    // its stand-ins: the worker's own (its table, deleted after the file) are put back after it.
    const environment = { ...process.env };
    process.env.PROCESSOR_RATE_LIMIT_PER_SECOND = '';
    logger.setLogLevel('INFO');
    let result: ScaleResult;
    try {
      result = await runScale({ tenants: 60, daySeconds: 6, sweepEverySeconds: 2, pollSample: 10, seed: 7 });
    } finally {
      for (const name of Object.keys(process.env)) if (!(name in environment)) delete process.env[name];
      Object.assign(process.env, environment);
      logger.setLogLevel('SILENT');
    }

    // Every renewing or cancelling tenant's state is the processor's; every re-check was done.
    expect(result.renewals).toBe(2);
    expect(result.cancels).toBe(1);
    expect(result.mismatches).toEqual([]);
    expect(result.notRechecked).toBe(0);
    expect(result.errors).toEqual([]);
    // Each seeded tenant was looked at: a re-check each, or an event's look before it came due.
    expect(result.recheckWaits.length).toBeGreaterThan(
      result.tenants - result.renewals - result.cancels - result.planChanges.length - 1,
    );
    expect(result.eventLags.length).toBe(result.events);
    expect(result.events).toBeGreaterThanOrEqual(result.renewals * 5 + result.cancels);

    // The day's Plan Changes (at least 3) went through the real API and workflow to completion,
    // their Dispatchers acting; their executions' transitions and task runs are counted.
    expect(result.planChanges.length).toBe(3);
    for (const change of result.planChanges) {
      expect(change.status, change.status).toBe('completed');
      expect(change.execution?.status).toBe('SUCCEEDED');
      expect(change.execution?.transitions).toBeGreaterThan(0);
      expect(change.polls).toBeGreaterThan(0);
    }
    expect(result.stepFunctionTransitions).toBe(
      result.planChanges.reduce((sum, c) => sum + (c.execution?.transitions ?? 0), 0),
    );
    expect(result.day.taskInvocations).toBeGreaterThanOrEqual(result.planChanges.length);
    expect(result.callsByPath['POST /v1/subscriptions/{id}']).toBeGreaterThanOrEqual(
      result.planChanges.length,
    );
    // The inventory holds: no slot above its total, each placed Stack (seeded or checked out) one place.
    expect(result.capacity.overTotal).toEqual([]);
    expect(result.capacity.mismatched).toEqual([]);
    // Every seeded and checked-out Stack placed (a cancelled tenant's may be torn down already).
    expect(result.capacity.placedStacks).toBeLessThanOrEqual(result.stacks + result.checkouts);
    expect(result.capacity.placedStacks).toBeGreaterThanOrEqual(result.stacks - 3 * result.cancels);
    expect(result.capacity.placesUsed).toBe(result.capacity.placedStacks);

    // The budget's count of calls is the emulator's request log's; never above the limit.
    const logged = Object.values(result.callsByPath).reduce((sum, n) => sum + n, 0);
    expect(result.day.processorCalls).toBe(logged);
    expect(result.callsByPath['GET /v1/subscriptions']).toBeGreaterThanOrEqual(result.tenants);
    expect(result.limitPerSecond).toBe(25);
    expect(result.processorMaxPerSecond).toBeGreaterThan(0);
    expect(result.processorMaxPerSecond).toBeLessThanOrEqual(result.limitPerSecond);

    // The sampled polls are idle (304) and heartbeats accepted; each read the table.
    expect(result.polls.statuses).toEqual({ 'poll 304': 40, 'heartbeat 200': 10 });
    expect(result.polls.perPoll.readUnits).toBeGreaterThan(0);
    expect(result.polls.perHeartbeat.writeUnits).toBeGreaterThan(0);

    // The tenant app's reads, with the day's new tenant's session: answered, and read the table.
    expect(result.tenantApi.statuses).toEqual({
      '/v1/me 200': 3,
      '/v1/billing/status 200': 3,
      '/v1/billing/plans 200': 3,
    });
    expect(result.tenantApi.perCall.readUnits).toBeGreaterThan(0);

    const { usage } = tenantDayUsage(result, 100_000);
    for (const key of [
      'apiRequests',
      'lambdaInvocations',
      'lambdaGbSeconds',
      'dynamoReadUnits',
      'dynamoWriteUnits',
      'sqsRequests',
      'logBytes',
      'processorCalls',
      'stepFunctionTransitions',
      'cloudFrontRequests',
      'cloudFrontBytesOut',
      's3Requests',
    ] as const)
      expect(usage[key], key).toBeGreaterThan(0);
    // A tenant's day costs at least its re-check's one processor call.
    expect(usage.processorCalls).toBeGreaterThanOrEqual(1);
    // A control plane of its own (DynamoDB Local's JVM included) and a paced day: more than the default 30 s.
  }, 180_000);
});
