import { randomUUID } from 'node:crypto';
import { BatchWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { processorRateLimit } from '../../functions/ports/rate-limit.ts';
import { runSweep } from '../../functions/reconciler/run-sweep.ts';
import { setCapacityTotal } from '../../functions/store/capacity.ts';
import { db, tableName } from '../../functions/store/client.ts';
import { keys } from '../../functions/store/keys.ts';
import { newTenantItem, tenant as tenantEntity } from '../../functions/store/tenants.ts';
import type { RunningControlPlane } from '../../lib/local/server.ts';
import { paidCheckout } from './plane.ts';

export const LATENCY_TARGET_P95_MS = 300;
export const IDLE_READS_TARGET = 10;

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
};

/**
 * Checkout completed -> `active`: from the moment the Checkout page answers the payment until
 * `GET /v1/billing/status` says active, with the schedule far away (only intake's nudge can do it).
 * The first `warmUp` tenants are not counted: on a fresh plane they pay for DynamoDB Local's JVM
 * and V8 compiling the path (300-600 ms), which the cloud does not have; a Lambda's own cold
 * start is the bundles' import figure.
 */
export const measureCheckoutLatency = async (plane: RunningControlPlane, samples: number, warmUp = 5) => {
  const latencies: number[] = [];
  for (let i = 0; i < warmUp + samples; i++) {
    const login = `bench-${randomUUID().slice(0, 8)}`;
    const sessionToken = await paidCheckout(plane, login);
    const started = performance.now();
    for (;;) {
      const status = (await (
        await fetch(`${plane.url}/v1/billing/status`, {
          headers: { authorization: `Bearer ${sessionToken}` },
        })
      ).json()) as {
        billingState: string;
      };
      if (status.billingState === 'active') break;
      if (performance.now() - started > 30_000) throw new Error('never became active');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    if (i >= warmUp) latencies.push(performance.now() - started);
  }
  return { p50: percentile(latencies, 50), p95: percentile(latencies, 95), samples, warmUp };
};

const batchPut = async (items: Record<string, unknown>[]) => {
  for (let start = 0; start < items.length; start += 25) {
    let requests = items.slice(start, start + 25).map((Item) => ({ PutRequest: { Item } }));
    while (requests.length > 0) {
      const result = await db().send(new BatchWriteCommand({ RequestItems: { [tableName()]: requests } }));
      requests = (result.UnprocessedItems?.[tableName()] ?? []) as typeof requests;
    }
  }
};

/** Items one sweep reads when `tenants` tenants exist and none is due. */
export const measureIdleSweep = async (plane: RunningControlPlane, tenants: number) => {
  const now = plane.clock.now();
  await batchPut(
    Array.from({ length: tenants }, () => ({ ...newTenantItem(randomUUID(), now), billingState: 'active' })),
  );
  await plane.sweeper.runNow();
  const summary = await plane.sweeper.runNow();
  return {
    tenants,
    itemsRead: summary.indexItemsRead,
    reconciled: summary.reconciled,
    durationMs: summary.durationMs,
  };
};

/** Tenants reconciled per second when `count` subscribed tenants are due, against the emulator. */
export const measureReconcileRate = async (plane: RunningControlPlane, count: number) => {
  const emulator = plane.processor;
  emulator.setWebhook(undefined);
  const price = Object.values(emulator.state.prices).find(
    (p) => p.lookupKey === 'stack_plan_standard_monthly',
  );
  if (!price) throw new Error('no catalog: processor:sync did not run');
  const now = plane.clock.now();
  // The tenants' Home Region has a place for each, as paid checkouts would have reserved.
  const region = `bench-rate-${randomUUID().slice(0, 8)}`;
  await setCapacityTotal({ region, location: `${region}-a`, plan: 'standard', total: count }, now);
  const expiresAt = String(Math.floor(now.getTime() / 1000) + 3600);
  const items: Record<string, unknown>[] = [];
  for (let i = 0; i < count; i++) {
    const tenantId = randomUUID();
    const customer = emulator.route('POST', '/v1/customers', { metadata: { tenantId } }) as { id: string };
    const session = emulator.route('POST', '/v1/checkout/sessions', {
      mode: 'subscription',
      customer: customer.id,
      line_items: [{ price: price.id, quantity: '1' }],
      success_url: 'http://localhost/',
      expires_at: expiresAt,
      subscription_data: { metadata: { tenantId, plan: 'standard' } },
    }) as { id: string };
    emulator.payCheckout(session.id, '4242424242424242');
    const subscriptionId = emulator.state.checkoutSessions[session.id]?.subscription;
    const dueAt = now.toISOString();
    items.push({
      ...newTenantItem(tenantId, now),
      homeRegion: region,
      slug: `rate-${i}`,
      dueAt,
      ...tenantEntity.index.due(tenantId, dueAt),
    });
    items.push({
      ...keys.billing(tenantId),
      type: 'billing',
      tenantId,
      customerId: customer.id,
      subscriptionId,
    });
  }
  await batchPut(items);
  // Every processor call goes through this limiter: its counter is the calls made.
  const limiter = await processorRateLimit();
  const callsBefore = limiter.calls;
  // Every call's start (the limiter's clock: performance.now()), for the busiest second.
  const starts: number[] = [];
  limiter.observer = (startedAt) => starts.push(startedAt);
  const started = performance.now();
  let reconciled = 0;
  try {
    while (reconciled < count) {
      const summary = await runSweep(50_000);
      if (summary.reconciled === 0) break;
      reconciled += summary.reconciled;
    }
  } finally {
    limiter.observer = undefined;
  }
  const seconds = (performance.now() - started) / 1000;
  // The most calls started in any window [t, t + 1 s).
  let busiestSecond = 0;
  for (let i = 0, j = 0; i < starts.length; i++) {
    while (j < starts.length && (starts[j] ?? 0) < (starts[i] ?? 0) + 1000) j++;
    busiestSecond = Math.max(busiestSecond, j - i);
  }
  const calls = limiter.calls - callsBefore;
  // The steady daily re-check: the same tenants, active now, due again a day later as their
  // re-check makes them (the first pass also looked up each one's first payment).
  const dueAgain = now.toISOString();
  const tenantIds = items.flatMap((item) => (item.type === 'tenant' ? [String(item.tenantId)] : []));
  for (let start = 0; start < tenantIds.length; start += 25)
    await Promise.all(
      tenantIds.slice(start, start + 25).map((tenantId) => {
        const due = tenantEntity.index.due(tenantId, dueAgain);
        return db().send(
          new UpdateCommand({
            TableName: tableName(),
            Key: keys.tenant(tenantId),
            UpdateExpression: 'SET dueAt = :due, GSI2PK = :pk, GSI2SK = :sk',
            ExpressionAttributeValues: { ':due': dueAgain, ':pk': due.GSI2PK, ':sk': due.GSI2SK },
          }),
        );
      }),
    );
  const recheckCallsBefore = limiter.calls;
  const recheckStarted = performance.now();
  let rechecked = 0;
  while (rechecked < count) {
    const summary = await runSweep(50_000);
    if (summary.reconciled === 0) break;
    rechecked += summary.reconciled;
  }
  const recheckCalls = limiter.calls - recheckCallsBefore;
  const recheckSeconds = (performance.now() - recheckStarted) / 1000;
  const rate = {
    rechecked,
    recheckPerSecond: rechecked / recheckSeconds,
    recheckCalls,
    due: count,
    reconciled,
    seconds,
    perSecond: reconciled / seconds,
    processorCalls: calls,
    processorCallsPerSecond: calls / seconds,
    busiestSecond,
    limitPerSecond: limiter.perSecond,
  };
  // run.ts prints the throughput; this line puts the processor's pace beside its limit.
  console.log(
    `Processor calls while reconciling: ${calls} in ${seconds.toFixed(1)} s = ${rate.processorCallsPerSecond.toFixed(1)} calls/s, busiest second ${busiestSecond} calls (limit ${limiter.perSecond}/s)  ${
      busiestSecond <= limiter.perSecond ? 'never above the limit' : 'ABOVE THE LIMIT'
    }; ${reconciled} tenants reconciled = ${rate.perSecond.toFixed(1)} tenants/s`,
  );
  return rate;
};
