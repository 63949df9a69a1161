import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { GetQueueAttributesCommand, ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { grantMoneyBack } from '../../functions/billing/money-back.ts';
import { listInventory, setCapacityTotal } from '../../functions/store/capacity.ts';
import { db, tableName } from '../../functions/store/client.ts';
import { listDueTenants } from '../../functions/store/due.ts';
import { keys } from '../../functions/store/keys.ts';
import { FaultBoard } from '../../lib/local/faults.ts';
import type { ProcessorState } from '../../lib/local/processor/state.ts';
import { type RunningControlPlane, startControlPlane } from '../../lib/local/server.ts';
import { standInQueueCounts } from '../../lib/local-data.ts';
import { armEveryKind, everyFaultKind } from './faults.ts';
import { type Answer, moneyPathDriver, type Tenant } from './money-path.ts';

/**
 * The chaos run (issue 25): tenants go through the money path while every kind of fault of the
 * fault board fires on a share of the calls; then the faults stop, the sweep settles, and the
 * invariants are checked against the processor emulator's own records and our API. The driver is
 * a patient client: a call that failed (a 5xx, a lost answer) is made again with the same
 * Idempotency-Key, as the console does. `npm run test:chaos` (test/chaos/run.ts) and the short
 * version (test/chaos/short.test.ts) both run this.
 */

export interface ChaosOptions {
  seed: number;
  tenants: number;
  /** The share of the calls of each dependency that fault (spread over its kinds). */
  share?: number;
  /** How many tenants go through their path at once. */
  concurrency?: number;
  /** The least real time a wait for the sweep's work lasts before the driver gives up (ms). */
  patienceMs?: number;
  log?: (line: string) => void;
}

export interface ChaosResult {
  faults: number;
  kinds: number;
  firedByKind: Record<string, number>;
  violations: string[];
  /** When a violation was found: what the sweep still owed (intake queue, the tenants' due times). */
  diagnosis: string[];
  settledSeconds: number;
  /** Steps the driver gave up on (the path could not be driven; not an invariant). */
  abandoned: string[];
  /**
   * Steps refused for the whole of the driver's patience with answers that each say "nothing was
   * written, try again" (502 processor_unavailable, 429, 503 subscription_busy): the tenant was
   * told clearly, and the invariants show nothing was charged or held for them. Not a give-up.
   */
  refusedRetryably: string[];
  deadLetters: string[];
  line: string;
}

export const runChaos = async (options: ChaosOptions): Promise<ChaosResult> => {
  const log = options.log ?? (() => undefined);
  const share = options.share ?? 0.05;
  const board = new FaultBoard({ seed: options.seed });
  const dataDirectory = mkdtempSync(path.join(tmpdir(), 'scp-chaos-'));
  const previousLogLevel = process.env.POWERTOOLS_LOG_LEVEL;
  process.env.POWERTOOLS_LOG_LEVEL ??= 'SILENT';
  const plane: RunningControlPlane = await startControlPlane({
    port: 0,
    dataDirectory,
    fresh: true,
    sweepMode: 'manual',
    faults: board,
  });
  try {
    const driver = moneyPathDriver({
      url: () => plane.url,
      loginPrefix: `chaos-${options.seed}`,
      ...(options.patienceMs === undefined ? {} : { patienceMs: options.patienceMs }),
      pay: (sessionId, card) => driver.call('POST', `/_local/processor/checkout/${sessionId}/pay`, { card }),
      startDispatcher: (credential) => driver.call('POST', '/_local/fleet/dispatchers', { credential }),
      tickFleet: async () => {
        await driver.call('POST', '/_local/fleet/tick');
      },
      grantMoneyBack: async (tenant) => {
        await grantMoneyBack({ slug: tenant.login, email: tenant.email, now: plane.clock.now() });
      },
      advanceClock: (seconds) => driver.call('POST', '/_local/clock/advance', { seconds }),
    });
    const { as, tenants, abandoned, refusedRetryably } = driver;
    // Room for every tenant's Stacks (the seed's totals are for a person trying it out).
    for (const slot of (await listInventory('eu')).slots)
      await setCapacityTotal(
        { region: 'eu', location: slot.location, plan: slot.plan, total: slot.total + 3 * options.tenants },
        plane.clock.now(),
      );
    // The faults start before the first tenant signs in.
    armEveryKind(board, share);
    log(
      `chaos: seed ${options.seed}, ${options.tenants} tenants, ${share * 100}% of each dependency's calls fault`,
    );

    await driver.drive(options.tenants, options.concurrency ?? 4, log, 'chaos');

    // The faults stop; the sweep settles.
    board.disarm();
    const settleStarted = performance.now();
    await driver.settle({
      intake: () => intakeCounts(plane.cloud.endpoints.sqs, plane.cloud.environment),
      dueCount: async () => (await listDueTenants(plane.clock.now(), 1)).due.length,
    });
    await plane.mail.sync();
    const settledSeconds = (performance.now() - settleStarted) / 1000;

    const violations = await checkInvariants(
      { processor: plane.processor.state, mail: plane.mail.list() },
      tenants,
      as,
    );
    const deadLetters = await deadLettered(plane.cloud.endpoints.sqs, plane.cloud.environment);
    for (const letter of deadLetters) violations.push(`dead-lettered without a cause of ours: ${letter}`);
    const diagnosis = violations.length > 0 ? await owed(plane, tenants, violations) : [];
    const status = board.status();
    const kinds = new Set(Object.keys(status.byFault)).size;
    const line = `chaos: ${status.total} faults over ${kinds} kinds, ${violations.length} invariant violations, settled in ${settledSeconds.toFixed(1)} s`;
    return {
      faults: status.total,
      kinds,
      firedByKind: status.byFault,
      violations,
      settledSeconds,
      abandoned,
      refusedRetryably,
      deadLetters,
      diagnosis,
      line,
    };
  } finally {
    await plane.stop();
    rmSync(dataDirectory, { recursive: true, force: true });
    if (previousLogLevel === undefined) delete process.env.POWERTOOLS_LOG_LEVEL;
    else process.env.POWERTOOLS_LOG_LEVEL = previousLogLevel;
  }
};

/** Processor statuses that still bill. */
const LIVE = new Set(['active', 'trialing', 'past_due', 'unpaid', 'incomplete', 'paused']);

/** Every invariant of the issue, against the processor's records and our API (the crash run's and the restore drill's too). */
export const checkInvariants = async (
  records: { processor: ProcessorState; mail: { to: string; subject: string; text: string }[] },
  tenants: Pick<Tenant, 'login' | 'tenantId' | 'token'>[],
  // biome-ignore lint/suspicious/noExplicitAny: each caller's own tenant shape
  as: (tenant: any, method: string, urlPath: string) => Promise<Answer>,
): Promise<string[]> => {
  const violations: string[] = [];
  const state = records.processor;
  const subscriptions = Object.values(state.subscriptions);
  const invoices = Object.values(state.invoices);
  const stacksBySlot = new Map<string, number>();
  for (const tenant of tenants) {
    const own = subscriptions.filter((s) => s.metadata.tenantId === tenant.tenantId);
    const live = own.filter((s) => LIVE.has(s.status));
    if (live.length > 1) violations.push(`${tenant.login}: ${live.length} live subscriptions`);
    const status = (await as(tenant, 'GET', '/v1/billing/status')).body;
    const billingState = status?.billingState as string | undefined;
    const subscription = live[0] ?? own.at(-1);
    // Our billing state agrees with what the processor says of the subscription.
    if (subscription) {
      const leaving = subscription.status === 'canceled' || subscription.cancelAtPeriodEnd;
      const expected = leaving
        ? ['decommissioning']
        : subscription.status === 'active' || subscription.status === 'trialing'
          ? ['active']
          : ['past-due', 'suspended', 'decommissioning'];
      if (!billingState || !expected.includes(billingState))
        violations.push(
          `${tenant.login}: billing state ${billingState} but the processor says ${subscription.status}${subscription.cancelAtPeriodEnd ? ' (cancel at period end)' : ''}`,
        );
    }
    // No payment taken twice: one paid invoice per subscription and period for creations and renewals.
    const ownInvoices = invoices.filter((i) => own.some((s) => s.id === i.subscription));
    const seen = new Map<string, number>();
    for (const invoice of ownInvoices) {
      if (invoice.status !== 'paid' || invoice.total <= 0) continue;
      if (invoice.billingReason !== 'subscription_create' && invoice.billingReason !== 'subscription_cycle')
        continue;
      const key = `${invoice.subscription}:${invoice.periodStart}`;
      seen.set(key, (seen.get(key) ?? 0) + 1);
    }
    for (const [key, count] of seen)
      if (count > 1) violations.push(`${tenant.login}: ${count} payments for ${key}`);
    // No charge after leaving.
    for (const s of own) {
      const leftAt = s.canceledAt ?? (s.cancelAtPeriodEnd ? s.currentPeriodEnd : null);
      if (leftAt === null) continue;
      const after = ownInvoices.filter(
        (i) => i.subscription === s.id && i.paidAt !== null && i.created > leftAt && i.total > 0,
      );
      if (after.length) violations.push(`${tenant.login}: ${after.length} charge(s) after leaving`);
    }
    // Our Stacks agree with what is billed; each running Stack holds a place.
    const stacks = ((await as(tenant, 'GET', '/v1/stacks')).body?.stacks ?? []) as {
      lifecycle: string;
      location: string;
      plan: string;
    }[];
    // `creating`: running, its Dispatcher not started yet (it holds its place all the same).
    const running = stacks.filter((s) => s.lifecycle === 'running' || s.lifecycle === 'creating');
    for (const stack of running) {
      const slot = `${stack.location}/${stack.plan}`;
      stacksBySlot.set(slot, (stacksBySlot.get(slot) ?? 0) + 1);
    }
    const activeSubscription = live.find((s) => s.status === 'active' && !s.cancelAtPeriodEnd);
    if (activeSubscription && billingState === 'active') {
      const billed = activeSubscription.items.reduce((sum, item) => sum + item.quantity, 0);
      if (billed !== running.length)
        violations.push(`${tenant.login}: ${billed} Stack(s) billed, ${running.length} running`);
    }
  }
  const inventory = await listInventory('eu');
  for (const slot of inventory.slots) {
    if (slot.used > slot.total)
      violations.push(`places ${slot.location}/${slot.plan}: ${slot.used} used of ${slot.total}`);
    const holding = stacksBySlot.get(`${slot.location}/${slot.plan}`) ?? 0;
    if (holding > slot.used)
      violations.push(
        `places ${slot.location}/${slot.plan}: ${holding} running Stacks, ${slot.used} places used`,
      );
  }
  // Every email sent exactly once.
  const seenMail = new Map<string, number>();
  for (const mail of records.mail) {
    const key = `${mail.to}|${mail.subject}|${mail.text}`;
    seenMail.set(key, (seenMail.get(key) ?? 0) + 1);
  }
  for (const [key, count] of seenMail)
    if (count > 1) violations.push(`email sent ${count} times: ${key.split('|').slice(0, 2).join(' ')}`);
  return violations;
};

/**
 * What the sweep still owed when a violation was found (for whoever reads a failed run): the
 * intake queue's messages waiting and in flight, and each named tenant's due time and failures
 * against the clock.
 */
const owed = async (
  plane: RunningControlPlane,
  tenants: Tenant[],
  violations: string[],
): Promise<string[]> => {
  const lines: string[] = [];
  const intake = await intakeCounts(plane.cloud.endpoints.sqs, plane.cloud.environment);
  lines.push(`intake: ${intake.waiting} waiting, ${intake.inFlight} in flight`);
  lines.push(`clock: ${plane.clock.now().toISOString()}`);
  for (const tenant of tenants) {
    if (!violations.some((v) => v.startsWith(`${tenant.login}:`))) continue;
    const { Item } = await db().send(
      new GetCommand({ TableName: tableName(), Key: keys.tenant(tenant.tenantId), ConsistentRead: true }),
    );
    lines.push(
      `${tenant.login}: ${Item?.billingState}, due ${Item?.dueAt ?? 'never'}, ${Item?.reconcileFailures ?? 0} failures (last ${Item?.lastReconcileFailureAt ?? 'none'})`,
    );
  }
  return lines;
};

/** An SQS client of the queue stand-in at `endpoint` (the AWS variables of `environment`), for `use`. */
const withQueues = async <T>(
  endpoint: string,
  environment: Record<string, string | undefined>,
  use: (client: SQSClient) => Promise<T>,
): Promise<T> => {
  const client = new SQSClient({
    endpoint,
    region: environment.AWS_REGION ?? 'eu-west-1',
    credentials: {
      accessKeyId: environment.AWS_ACCESS_KEY_ID ?? '',
      secretAccessKey: environment.AWS_SECRET_ACCESS_KEY ?? '',
    },
  });
  try {
    return await use(client);
  } finally {
    client.destroy();
  }
};

/** The intake queue's messages waiting (delayed ones too) and in flight. */
export const intakeCounts = (endpoint: string, environment: Record<string, string | undefined>) =>
  withQueues(endpoint, environment, async (client) => {
    const { Attributes } = await client.send(
      new GetQueueAttributesCommand({
        QueueUrl: environment.PROCESSOR_EVENTS_QUEUE_URL ?? '',
        AttributeNames: ['All'],
      }),
    );
    const counts = standInQueueCounts(Attributes ?? {});
    const delayed = Number(Attributes?.ApproximateNumberOfMessagesDelayed ?? 0);
    return { waiting: counts.waiting + delayed, inFlight: counts.inFlight };
  });

/** The dead-lettered processor events, each with what it carried. */
export const deadLettered = (
  endpoint: string,
  environment: Record<string, string | undefined>,
): Promise<string[]> =>
  withQueues(endpoint, environment, async (client) => {
    const url = environment.PROCESSOR_EVENTS_DLQ_URL ?? '';
    const { Attributes } = await client.send(
      new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['ApproximateNumberOfMessages'] }),
    );
    if (Number(Attributes?.ApproximateNumberOfMessages ?? 0) === 0) return [];
    const { Messages } = await client.send(
      new ReceiveMessageCommand({ QueueUrl: url, MaxNumberOfMessages: 10 }),
    );
    return (Messages ?? []).map((m) => (m.Body ?? '').slice(0, 200));
  });

/** Every kind a chaos run arms (for the closing note). */
export const chaosKinds = () => everyFaultKind().map(({ dependency, fault }) => `${dependency}:${fault}`);
