import { randomBytes, randomUUID } from 'node:crypto';
import { BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import {
  HEARTBEAT_SECONDS,
  POLL_IDLE_MAX_SECONDS,
  POLL_IDLE_MIN_SECONDS,
  pollAfterSeconds,
} from '../../../functions/core/dispatcher.ts';
import { isTerminal, type PlanChangeStatus } from '../../../functions/core/plan-change.ts';
import { PLAN_VALUES, type PlanValue } from '../../../functions/core/plans.ts';
import { stackName } from '../../../functions/core/slug.ts';
import { FIRST_STACK_ID, stackOnPlan } from '../../../functions/core/stacks.ts';
import { config } from '../../../functions/ports/config.ts';
import { logger } from '../../../functions/ports/logger.ts';
import { priceIdForPlan } from '../../../functions/ports/processor/catalog.ts';
import { budgetShape } from '../../../functions/ports/rate-limit.ts';
import { IN_FLIGHT } from '../../../functions/reconciler/run-sweep.ts';
import { issueStackCredential } from '../../../functions/stacks/dispatcher-credential.ts';
import { subscribedBillingItem } from '../../../functions/store/billing.ts';
import { capacitySlotItem, listInventory } from '../../../functions/store/capacity.ts';
import { db, tableName } from '../../../functions/store/client.ts';
import { listDueTenants } from '../../../functions/store/due.ts';
import { keys } from '../../../functions/store/keys.ts';
import { getPlanChange } from '../../../functions/store/plan-changes.ts';
import { listStacks, stackItem } from '../../../functions/store/stacks.ts';
import {
  activeTenantItem,
  getTenant,
  lookNoLaterThan,
  SIGNUP_HOME_REGION,
} from '../../../functions/store/tenants.ts';
import { newUserItems } from '../../../functions/store/users.ts';
import { accountEmail } from '../../../lib/local/code-host.ts';
import { type RunningControlPlane, startControlPlane } from '../../../lib/local/server.ts';
import { USAGE } from '../cost.ts';
import { checkoutPaid, post } from '../plane.ts';
import { Counts, ScaleMeter } from './meter.ts';

/**
 * The scale bench's simulation (issue 23): N tenants seeded in bulk, then ONE billing day in
 * compressed time through the real handlers and the real sweep. Time: the Clock (business time)
 * runs `86,400 / daySeconds` times faster than the wall, so a day's arrivals (re-checks coming
 * due, renewals, cancels, checkouts) come in `daySeconds` of wall time; the processor budget, the
 * sweep's work and every lag are wall time (the budget paces by wall time: rate-limit.ts), so
 * "calls per second" are real seconds of this machine and the lags are what a tenant would wait
 * under that (compressed, so heavier than real) arrival rate.
 */

const DAY = 86_400;
const MONTH_DAYS = 30;

/** A small seeded generator, so that a run's mix is the same for the same seed. */
const random = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
};
const shuffled = (count: number, rng: () => number): number[] => {
  const order = Array.from({ length: count }, (_, i) => i);
  for (let i = count - 1; i > 0; i--) {
    const j = Math.floor(rng() * (i + 1));
    [order[i], order[j]] = [order[j] as number, order[i] as number];
  }
  return order;
};

export interface ScaleOptions {
  tenants: number;
  /** Wall seconds the day's arrivals are spread over (default: from the budget, see `defaultDaySeconds`). */
  daySeconds?: number;
  /** The schedule's interval (wall seconds; the cloud's is 60). */
  sweepEverySeconds?: number;
  /** Stacks whose idle polls are run for real (the sample). */
  pollSample?: number;
  seed?: number;
  log?: (line: string) => void;
}

export interface SeededTenant {
  tenantId: string;
  /** Its administrator's login (the local sign-in's), the tenant's slug. */
  login: string;
  customerId: string;
  subscriptionId: string;
  stacks: { stackId: string; plan: PlanValue; location: string }[];
  /** Clock ms when its daily re-check is due. */
  dueAtMs: number;
  /** Clock ms when its subscription renews. */
  renewsAtMs: number;
  fails: boolean;
}

const PLAN_MIX: [PlanValue, number][] = [
  ['standard', 0.6],
  ['plus', 0.3],
  ['pro', 0.1],
];
const pickPlan = (u: number): PlanValue => {
  let sum = 0;
  for (const [plan, share] of PLAN_MIX) {
    sum += share;
    if (u < sum) return plan;
  }
  return 'standard';
};
/** 80% of the tenants have one Stack, 15% two, 5% three. */
const stackCountOf = (u: number): number => (u < 0.8 ? 1 : u < 0.95 ? 2 : 3);

const batchWrite = async (items: Record<string, unknown>[], inFlight = 8): Promise<void> => {
  const batches: Record<string, unknown>[][] = [];
  for (let i = 0; i < items.length; i += 25) batches.push(items.slice(i, i + 25));
  let next = 0;
  const worker = async () => {
    for (;;) {
      const batch = batches[next++];
      if (!batch) return;
      let requests = batch.map((Item) => ({ PutRequest: { Item } }));
      while (requests.length > 0) {
        const result = await db().send(new BatchWriteCommand({ RequestItems: { [tableName()]: requests } }));
        requests = (result.UnprocessedItems?.[tableName()] ?? []) as typeof requests;
      }
    }
  };
  await Promise.all(Array.from({ length: inFlight }, worker));
};

/** Free places each slot keeps beyond the seeded Stacks: room for the day's checkouts and Plan Changes. */
export const slotHeadroom = (used: number): number => Math.max(20, Math.ceil(used * 0.05));

/**
 * Seeds `count` active tenants into the table and the emulator, due and renewing over the day from
 * `dayStart`: each with an administrator (its slug is the login of the local sign-in), its Stacks
 * placed in turn in the Home Region's locations, and the region's inventory put in with each slot's
 * places in use (one per placed Stack) and a headroom of free places (`slotHeadroom`).
 */
export const seedTenants = async (
  plane: RunningControlPlane,
  count: number,
  dayStart: Date,
  rng: () => number,
): Promise<{ tenants: SeededTenant[]; itemBytes: number; slots: number }> => {
  const now = plane.clock.now();
  // The locations of the Home Region's inventory (lib/local/capacity.json, seeded at start).
  const locations = [
    ...new Set((await listInventory(SIGNUP_HOME_REGION)).slots.map((slot) => slot.location)),
  ].sort();
  if (locations.length === 0) throw new Error(`no capacity inventory in ${SIGNUP_HOME_REGION}`);
  const usedBySlot = new Map<string, number>();
  let placedSoFar = 0;
  const prices = Object.fromEntries(
    await Promise.all(PLAN_VALUES.map(async (plan) => [plan, await priceIdForPlan(plan, now.getTime())])),
  ) as Record<PlanValue, string>;
  const dueOrder = shuffled(count, rng);
  const renewOrder = shuffled(count, rng);
  const renewingToday = Math.round(count / MONTH_DAYS);
  const failing = new Set(shuffled(renewingToday, rng).slice(0, Math.round(renewingToday * 0.03)));
  const start = dayStart.getTime();
  const plans = Array.from({ length: count }, () =>
    Array.from({ length: stackCountOf(rng()) }, () => pickPlan(rng())),
  );
  const renewsAt = (i: number) =>
    start + Math.floor((((renewOrder[i] ?? 0) + 0.5) / count) * MONTH_DAYS * DAY * 1000);
  const seeded = plane.processor.seedSubscribers(
    plans.map((stackPlans, i) => {
      const periodEnd = Math.floor(renewsAt(i) / 1000);
      const quantities = new Map<string, number>();
      for (const plan of stackPlans) quantities.set(prices[plan], (quantities.get(prices[plan]) ?? 0) + 1);
      return {
        metadata: { tenantId: `pending-${i}`, plan: stackPlans[0] as string },
        items: [...quantities].map(([price, quantity]) => ({ price, quantity })),
        periodStart: periodEnd - MONTH_DAYS * DAY,
        periodEnd,
        card: failing.has(renewOrder[i] ?? -1) ? 'fails_later' : 'succeeds',
      };
    }),
  );
  const tenants: SeededTenant[] = [];
  const items: Record<string, unknown>[] = [];
  const createdAt = new Date(start - 90 * DAY * 1000);
  for (let i = 0; i < count; i++) {
    const tenantId = randomUUID();
    const { customerId, subscriptionId } = seeded[i] as { customerId: string; subscriptionId: string };
    // The emulator's records carry the tenant as our checkout writes it.
    const customer = plane.processor.state.customers[customerId];
    const subscription = plane.processor.state.subscriptions[subscriptionId];
    if (customer) customer.metadata.tenantId = tenantId;
    if (subscription) subscription.metadata.tenantId = tenantId;
    const slug = `scale-${i}-${tenantId.slice(0, 6)}`;
    const dueAtMs = start + Math.floor((((dueOrder[i] ?? 0) + 0.5) / count) * DAY * 1000);
    const stackPlans = plans[i] as PlanValue[];
    const stacks = stackPlans.map((plan, n) => {
      const location = locations[placedSoFar++ % locations.length] as string;
      usedBySlot.set(`${location}#${plan}`, (usedBySlot.get(`${location}#${plan}`) ?? 0) + 1);
      return {
        stackId: n === 0 ? FIRST_STACK_ID : `stk_${randomBytes(6).toString('hex')}`,
        plan,
        location,
      };
    });
    items.push(
      activeTenantItem({
        tenantId,
        slug,
        createdAt,
        firstPaidAt: createdAt.toISOString(),
        dueAt: new Date(dueAtMs).toISOString(),
        stacks: stacks.length,
      }),
      subscribedBillingItem(tenantId, customerId, subscriptionId),
      ...newUserItems(
        { provider: 'local', subject: slug.toLowerCase(), login: slug, email: accountEmail(slug) },
        { userId: randomUUID(), tenantId, role: 'administrator' },
        createdAt.toISOString(),
      ),
      ...stacks.map((stack, n) =>
        stackItem(
          tenantId,
          {
            ...stackOnPlan({
              stackId: stack.stackId,
              name: stackName(n === 0 ? slug : `${slug}-${n + 1}`, config.stackDomain()),
              plan: stack.plan,
              location: stack.location,
              createdAt: createdAt.toISOString(),
            }),
            billedPriceId: prices[stack.plan],
          },
          { region: SIGNUP_HOME_REGION, placed: true },
        ),
      ),
    );
    tenants.push({
      tenantId,
      login: slug,
      customerId,
      subscriptionId,
      stacks,
      dueAtMs,
      renewsAtMs: renewsAt(i),
      fails: failing.has(renewOrder[i] ?? -1),
    });
  }
  const itemBytes = items.reduce(
    (sum, item) => sum + JSON.stringify(item, (_k, v) => (v instanceof Set ? [...v] : v)).length,
    0,
  );
  // The inventory: every slot of every location and Plan, its places in use those of the placed
  // Stacks (replacing the start's seed of the same slots, which held none).
  const slotItems = locations.flatMap((location) =>
    PLAN_VALUES.map((plan) => {
      const used = usedBySlot.get(`${location}#${plan}`) ?? 0;
      return capacitySlotItem(
        { region: SIGNUP_HOME_REGION, location, plan, used, total: used + slotHeadroom(used) },
        now,
      );
    }),
  );
  await batchWrite([...items, ...slotItems]);
  return { tenants, itemBytes, slots: slotItems.length };
};

/** A new tenant: sign-in, slug, a Standard checkout paid on the emulator's page. */
const newCheckout = checkoutPaid;

/** The Plan a tenant's first Stack changes to: one up, or from Pro one down. */
const NEXT_PLAN: Record<PlanValue, PlanValue> = { standard: 'plus', plus: 'pro', pro: 'plus' };

/** A Plan Change of the day, set up before it (an administrator's session, the Stack's Dispatcher running). */
export interface PlanChangeRun {
  tenantId: string;
  stackId: string;
  from: PlanValue;
  to: PlanValue;
  dispatcherId: string;
  sessionToken: string;
  changeId?: string;
  /** The change's last status, or why it could not run (`failed: ...`). */
  status: PlanChangeStatus | `failed: ${string}` | 'not run';
  /** The execution's status and its state transitions (the StateEntered events AWS bills). */
  execution?: { status: string; transitions: number };
  /** Polls its Dispatcher made while the change ran. */
  polls: number;
  wallSeconds: number;
  /** What the run added to the counts (whatever else ran meanwhile, sweeps included). */
  counts?: Counts;
}

/** Plan Changes in a day: 2% of the tenants a month (issue 23; cost.ts USAGE), at least 3 so that a small run has some. */
export const planChangesPerDay = (tenants: number): number =>
  Math.max(3, Math.round((tenants * USAGE.planChangesPerTenantMonth) / MONTH_DAYS));

/**
 * Before the day: the administrator signs in (a console session), and the Stack's Dispatcher runs
 * in the fleet (its credential issued, its first poll and report made), as for any Stack in use.
 */
const prepareChange = async (plane: RunningControlPlane, tenant: SeededTenant): Promise<PlanChangeRun> => {
  const stack = tenant.stacks[0] as SeededTenant['stacks'][number];
  const signIn = await post(plane, '/_local/sign-in', { login: tenant.login });
  const { sessionToken, tenantId } = (await signIn.json()) as { sessionToken: string; tenantId: string };
  if (tenantId !== tenant.tenantId)
    throw new Error(`${tenant.login} signed in to tenant ${tenantId}, not ${tenant.tenantId}`);
  const { credential } = await issueStackCredential({
    tenantId,
    stackId: stack.stackId,
    now: plane.clock.now(),
  });
  const dispatcher = await plane.fleet.start(credential, { location: stack.location });
  return {
    tenantId,
    stackId: stack.stackId,
    from: stack.plan,
    to: NEXT_PLAN[stack.plan],
    dispatcherId: dispatcher.dispatcherId,
    sessionToken,
    status: 'not run',
    polls: 0,
    wallSeconds: 0,
  };
};

/**
 * One Plan Change as the console makes it (preview, then confirm with an Idempotency-Key) through
 * the real handlers, its workflow on the Step Functions stand-in, the Stack's Dispatcher polling
 * (ticked by hand, every 100 ms) until the change ends or waits for capacity; then its execution's
 * end is awaited (the last task returns after the record's last write).
 */
const runPlanChange = async (plane: RunningControlPlane, meter: ScaleMeter, change: PlanChangeRun) => {
  const started = performance.now();
  const { counts } = await meter.measureRequest(async () => {
    // The Stack's Dispatcher has polled all day (counted in the fleet's exact day): one poll now,
    // so that its last report is as fresh as a running one's when the change is confirmed.
    await plane.fleet.tick([change.dispatcherId]);
    change.polls++;
    const headers = { authorization: `Bearer ${change.sessionToken}`, 'content-type': 'application/json' };
    const body = JSON.stringify({ plan: change.to });
    const preview = await fetch(`${plane.url}/v1/stacks/${change.stackId}/plan-changes/preview`, {
      method: 'POST',
      headers,
      body,
    });
    if (preview.status !== 200) {
      change.status = `failed: preview answered ${preview.status} ${(await preview.text()).slice(0, 200)}`;
      return;
    }
    await preview.arrayBuffer();
    const confirmed = await fetch(`${plane.url}/v1/stacks/${change.stackId}/plan-changes`, {
      method: 'POST',
      headers: { ...headers, 'idempotency-key': `scale-${change.tenantId}` },
      body,
    });
    if (confirmed.status !== 202) {
      change.status = `failed: confirmation answered ${confirmed.status} ${(await confirmed.text()).slice(0, 200)}`;
      return;
    }
    const { changeId, status } = (await confirmed.json()) as { changeId: string; status: PlanChangeStatus };
    change.changeId = changeId;
    change.status = status;
    const deadline = performance.now() + 120_000;
    while (!isTerminal(change.status) && change.status !== 'waiting_for_capacity') {
      if (performance.now() > deadline) break;
      await plane.fleet.tick([change.dispatcherId]);
      change.polls++;
      const stored = await meter.unmetered(() => getPlanChange(change.tenantId, changeId));
      if (stored) change.status = stored.status;
      if (!isTerminal(change.status)) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    if (isTerminal(change.status)) {
      const ended = await Promise.race([
        plane.cloud.stepFunctions.settled(changeId),
        new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), 30_000)),
      ]);
      if (!ended) change.status = `failed: the execution of ${changeId} did not end within 30 s`;
    }
  });
  change.counts = counts;
  change.wallSeconds = (performance.now() - started) / 1000;
};

/** The tenant app's reads (`npm run bench` assumes 20 a tenant a day, spread over these). */
export const TENANT_API_PATHS = ['/v1/me', '/v1/billing/status', '/v1/billing/plans'] as const;

/** A sample of the tenant app's reads through the real authorizer and handlers, one at a time. */
const sampleTenantApi = async (plane: RunningControlPlane, meter: ScaleMeter, tokens: readonly string[]) => {
  const total = new Counts();
  const statuses: Record<string, number> = {};
  let calls = 0;
  for (let round = 0; round < 3; round++)
    for (const token of tokens)
      for (const path of TENANT_API_PATHS) {
        const { result, counts } = await meter.measureRequest(async () => {
          const r = await fetch(`${plane.url}${path}`, { headers: { authorization: `Bearer ${token}` } });
          await r.arrayBuffer();
          return r.status;
        });
        statuses[`${path} ${result}`] = (statuses[`${path} ${result}`] ?? 0) + 1;
        for (const key of Object.keys(total) as (keyof Counts)[]) total[key] += counts[key];
        calls++;
      }
  return { calls, perCall: per(total, calls), statuses };
};

const percentile = (values: readonly number[], p: number): number => {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? 0;
};

/** The first value of a sorted list at or after `at`. */
const firstAtOrAfter = (sorted: readonly number[], at: number): number | undefined =>
  sorted.find((t) => t >= at);

export interface PollSample {
  stacksSampled: number;
  polls: number;
  heartbeats: number;
  perPoll: Counts;
  perHeartbeat: Counts;
  /** The spread of read and write units between the sampled requests (representativeness). */
  pollReadUnits: { min: number; max: number };
  heartbeatWriteUnits: { min: number; max: number };
  statuses: Record<string, number>;
  /** Exact counts for the whole fleet, from the polling formula and every Stack's id. */
  pollsPerDay: number;
  heartbeatsPerDay: number;
}

const per = (counts: Counts, n: number): Counts => {
  const out = new Counts();
  for (const key of Object.keys(out) as (keyof Counts)[]) out[key] = counts[key] / Math.max(1, n);
  return out;
};

/** Runs a sample of idle polls and heartbeats through the real authorizer and handlers; counts a day's polls exactly. */
const samplePolls = async (
  plane: RunningControlPlane,
  meter: ScaleMeter,
  tenants: readonly SeededTenant[],
  sampleSize: number,
  rng: () => number,
): Promise<PollSample> => {
  const allStacks = tenants.flatMap((t) =>
    t.stacks.map((s) => ({ tenantId: t.tenantId, stackId: s.stackId })),
  );
  // The fleet's exact day: every Stack polls at its own idle interval (the formula, by its id and
  // version 1, applied), and sends its heartbeat at the first poll an hour after the last one.
  let pollsPerDay = 0;
  let heartbeatsPerDay = 0;
  for (const { stackId } of allStacks) {
    const interval = pollAfterSeconds(1, 1, stackId);
    if (interval < POLL_IDLE_MIN_SECONDS || interval > POLL_IDLE_MAX_SECONDS)
      throw new Error(`an idle Stack told to poll in ${interval} s`);
    pollsPerDay += DAY / interval;
    heartbeatsPerDay += DAY / (Math.ceil(HEARTBEAT_SECONDS / interval) * interval);
  }
  const order = shuffled(allStacks.length, rng).slice(0, Math.min(sampleSize, allStacks.length));
  const sample = order.map((i) => allStacks[i] as { tenantId: string; stackId: string });
  const now = plane.clock.now();
  const dispatchers = [];
  for (const stack of sample) {
    // Not idle yet: a new credential, its first read and the first report are set-up, not counted.
    const { credential } = await issueStackCredential({ ...stack, now });
    const first = await fetch(`${plane.url}/v1/dispatcher/desired-state`, {
      headers: { authorization: `Bearer ${credential}` },
    });
    const desired = (await first.json()) as { version: number };
    const body = JSON.stringify({
      appliedVersion: desired.version,
      health: 'healthy',
      activeRuns: 0,
      localHostExecutor: false,
      tornDown: false,
    });
    const report = await fetch(`${plane.url}/v1/dispatcher/observed-state`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${credential}`, 'content-type': 'application/json' },
      body,
    });
    await report.arrayBuffer();
    dispatchers.push({ credential, etag: first.headers.get('etag') ?? '', body });
  }
  const statuses: Record<string, number> = {};
  const pollCounts: Counts[] = [];
  const heartbeatCounts: Counts[] = [];
  const pollTotal = new Counts();
  const heartbeatTotal = new Counts();
  const addTo = (sum: Counts, c: Counts) => {
    for (const key of Object.keys(sum) as (keyof Counts)[]) sum[key] += c[key];
  };
  const POLLS_EACH = 4;
  for (const d of dispatchers) {
    for (let i = 0; i < POLLS_EACH; i++) {
      const { result, counts } = await meter.measureRequest(async () => {
        const r = await fetch(`${plane.url}/v1/dispatcher/desired-state`, {
          headers: { authorization: `Bearer ${d.credential}`, 'if-none-match': d.etag },
        });
        await r.arrayBuffer();
        return r.status;
      });
      statuses[`poll ${result}`] = (statuses[`poll ${result}`] ?? 0) + 1;
      pollCounts.push(counts);
      addTo(pollTotal, counts);
    }
    const { result, counts } = await meter.measureRequest(async () => {
      const r = await fetch(`${plane.url}/v1/dispatcher/observed-state`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${d.credential}`, 'content-type': 'application/json' },
        body: d.body,
      });
      await r.arrayBuffer();
      return r.status;
    });
    statuses[`heartbeat ${result}`] = (statuses[`heartbeat ${result}`] ?? 0) + 1;
    heartbeatCounts.push(counts);
    addTo(heartbeatTotal, counts);
  }
  const spread = (list: Counts[], key: keyof Counts) => ({
    min: Math.min(...list.map((c) => c[key])),
    max: Math.max(...list.map((c) => c[key])),
  });
  return {
    stacksSampled: sample.length,
    polls: pollCounts.length,
    heartbeats: heartbeatCounts.length,
    perPoll: per(pollTotal, pollCounts.length),
    perHeartbeat: per(heartbeatTotal, heartbeatCounts.length),
    pollReadUnits: spread(pollCounts, 'readUnits'),
    heartbeatWriteUnits: spread(heartbeatCounts, 'writeUnits'),
    statuses,
    pollsPerDay,
    heartbeatsPerDay,
  };
};

export interface ScaleResult {
  tenants: number;
  stacks: number;
  daySeconds: number;
  wallSeconds: { seed: number; day: number; drain: number; polls: number };
  limitPerSecond: number;
  /** Places a busy account gets a second (budgetShape). */
  budgetPerSecond: number;
  /** The day's counts (arrivals and drain), for the whole fleet. */
  day: Counts;
  idleSweep: Counts;
  polls: PollSample;
  /** The tenant app's reads, sampled with the day's new tenants' sessions. */
  tenantApi: { calls: number; perCall: Counts; statuses: Record<string, number> };
  renewals: number;
  failedRenewals: number;
  cancels: number;
  checkouts: number;
  checkoutFailures: string[];
  /** Budget places this process lost in the day (a window full, or won too late to start in it). */
  placesLost: number;
  events: number;
  eventLags: number[];
  /** Wall seconds from coming due (Clock passing its due time) to its commit, per re-checked tenant. */
  recheckWaits: number[];
  notRechecked: number;
  /** A reconciliation's own time (its tenant read to its commit), seconds. */
  serviceTimes: number[];
  processorMaxPerSecond: number;
  /** Calls over (limit x seconds) in the seconds a sweep ran with due work left at both ends. */
  busyShare: number;
  busySeconds: number;
  /** Seconds with due work and no sweep running (waiting for the schedule or a nudge). */
  idleDueSeconds: number;
  sharedCalls: number;
  itemBytesPerTenant: number;
  /** Renewal tenants whose state disagrees with the emulator after the day (should be none). */
  mismatches: string[];
  sweepIntervals: number;
  /** Bytes of the handler's one log line per sweep. */
  sweepLineBytes: number;
  /** Prints past the log-line counter. */
  print: (line: string) => void;
  /** The first error lines our logger wrote, if any. */
  errors: string[];
  /** The day's processor calls by method and path (ids folded). */
  callsByPath: Record<string, number>;
  notRecheckedIds: string[];
  /** The day's Plan Changes, and their executions' state transitions in all. */
  planChanges: PlanChangeRun[];
  stepFunctionTransitions: number;
  /** The Home Region's inventory after the day against the Stacks placed in it. */
  capacity: CapacityCheck;
}

export interface CapacityCheck {
  slots: number;
  placesUsed: number;
  placedStacks: number;
  /** Slots whose places in use exceed their total (the invariant: none). */
  overTotal: string[];
  /** Slots whose places in use are not their placed Stacks (each running Stack holds exactly one). */
  mismatched: string[];
}

/** Every slot of the Home Region against the placed Stacks of `tenantIds` (read after the day, unmetered). */
const checkCapacity = async (meter: ScaleMeter, tenantIds: readonly string[]): Promise<CapacityCheck> =>
  meter.unmetered(async () => {
    const placed = new Map<string, number>();
    let next = 0;
    const worker = async () => {
      for (;;) {
        const tenantId = tenantIds[next++];
        if (tenantId === undefined) return;
        for (const stack of await listStacks(tenantId))
          if (stack.placed && stack.region === SIGNUP_HOME_REGION) {
            const key = `${stack.location} ${stack.plan}`;
            placed.set(key, (placed.get(key) ?? 0) + 1);
          }
      }
    };
    await Promise.all(Array.from({ length: 16 }, worker));
    const { slots } = await listInventory(SIGNUP_HOME_REGION);
    const overTotal: string[] = [];
    const mismatched: string[] = [];
    for (const slot of slots) {
      const key = `${slot.location} ${slot.plan}`;
      if (slot.used > slot.total) overTotal.push(`${key}: ${slot.used} used of ${slot.total}`);
      if (slot.used !== (placed.get(key) ?? 0))
        mismatched.push(`${key}: ${slot.used} used, ${placed.get(key) ?? 0} placed Stacks`);
    }
    for (const key of placed.keys())
      if (!slots.some((slot) => `${slot.location} ${slot.plan}` === key))
        mismatched.push(`${key}: placed Stacks in no slot`);
    return {
      slots: slots.length,
      placesUsed: slots.reduce((sum, slot) => sum + slot.used, 0),
      placedStacks: [...placed.values()].reduce((sum, n) => sum + n, 0),
      overTotal,
      mismatched,
    };
  });

export const defaultDaySeconds = (tenants: number, limitPerSecond: number): number => {
  const shape = budgetShape(limitPerSecond);
  // About 1.1 processor calls a tenant a day, at 85% of what a busy account gets: busy enough for
  // a backlog to form at times (the share of the limit used while work is due is measured then),
  // not so busy that it grows all day.
  return Math.max(30, Math.ceil((tenants * 1.1) / (0.85 * shape.places * shape.windowsPerSecond)));
};

export const runScale = async (options: ScaleOptions): Promise<ScaleResult> => {
  const log = options.log ?? (() => undefined);
  const rng = random(options.seed ?? 23);
  const meter = new ScaleMeter();
  // In memory (no data folder): DynamoDB Local keeps the table in memory, and the emulator does
  // not rewrite its whole state to a file every 250 ms (at 10,000 tenants, megabytes each time).
  const plane = await startControlPlane({ port: 0, sweepEverySeconds: options.sweepEverySeconds ?? 60 });
  // The Dispatchers of the Plan Changes' Stacks are ticked by hand, while their change runs: the
  // fleet's idle polls are counted apart (samplePolls), not by a ticker polling every 2 s.
  plane.fleet.stop();
  try {
    await meter.install(plane);
    const budget = meter.budget;
    if (!budget) throw new Error('no processor budget');
    const limitPerSecond = budget.perSecond;
    const shape = budgetShape(limitPerSecond);
    const daySeconds = options.daySeconds ?? defaultDaySeconds(options.tenants, limitPerSecond);

    // ---- seed ----
    let mark = performance.now();
    const dayStart = new Date(plane.clock.now().getTime() + 60_000);
    const { tenants, itemBytes, slots } = await seedTenants(plane, options.tenants, dayStart, rng);
    for (const t of tenants) meter.track(t.tenantId, keys.tenant(t.tenantId));
    const byCustomer = new Map(tenants.map((t) => [t.customerId, t]));
    const seedSeconds = (performance.now() - mark) / 1000;
    log(
      `seeded ${tenants.length.toLocaleString('en')} tenants, their administrators, their Stacks placed in ${slots} capacity slots, in ${seedSeconds.toFixed(1)} s (stand-ins: ${JSON.stringify(plane.cloud.endpoints)}, processor ${plane.processor.url})`,
    );

    // ---- the day's arrivals ----
    const portal = Object.values(plane.processor.state.portalConfigurations).find(
      (c) => c.subscriptionCancel,
    );
    if (!portal) throw new Error('no portal configuration with cancels: processor:sync did not run');
    const cancelCount = Math.max(1, Math.round(options.tenants * 0.005));
    const checkoutCount = Math.max(1, Math.round((options.tenants * 0.05) / MONTH_DAYS));
    const cancelOrder = shuffled(tenants.length, rng).slice(0, cancelCount);
    const actions: { atMs: number; run: () => void | Promise<void> }[] = [];
    const cancelled: SeededTenant[] = [];
    for (const i of cancelOrder) {
      const t = tenants[i] as SeededTenant;
      actions.push({
        atMs: dayStart.getTime() + Math.floor(rng() * DAY * 1000),
        run: () => {
          plane.processor.cancelFromPortal(t.customerId, portal.id);
          cancelled.push(t);
        },
      });
    }
    // Plan Changes: tenants in good standing (no cancel, no failing renewal today), set up before
    // the day; each runs at its time with the Clock held still (its steps' deadlines are hours of
    // Clock time, which compressed time would pass in seconds), the day resuming where it was.
    const leaving = new Set(cancelOrder);
    const changing = shuffled(tenants.length, rng)
      .filter((i) => !leaving.has(i) && !(tenants[i] as SeededTenant).fails)
      .slice(0, planChangesPerDay(tenants.length));
    const planChanges: PlanChangeRun[] = [];
    for (const i of changing) planChanges.push(await prepareChange(plane, tenants[i] as SeededTenant));
    let heldMs = 0;
    for (const change of planChanges)
      actions.push({
        atMs: dayStart.getTime() + Math.floor(rng() * DAY * 1000),
        run: async () => {
          const started = performance.now();
          try {
            await runPlanChange(plane, meter, change);
          } catch (error) {
            // Counted and shown, not hidden: a change that could not run is a finding of the run.
            change.status = `failed: ${(error as Error).message.slice(0, 300)}`;
          }
          heldMs += performance.now() - started;
        },
      });
    let checkouts = 0;
    const checkoutFailures: string[] = [];
    const tokens: string[] = [];
    const checkoutTenantIds: string[] = [];
    for (let i = 0; i < checkoutCount; i++)
      actions.push({
        atMs: dayStart.getTime() + Math.floor(rng() * DAY * 1000),
        // Awaited: the Clock holds still during a tenant's checkout (its session's expiry is set
        // from the Clock and checked by the processor a few requests later).
        run: async () => {
          try {
            const { sessionToken, tenantId } = await newCheckout(
              plane,
              `scale-new-${i}-${randomUUID().slice(0, 6)}`,
            );
            tokens.push(sessionToken);
            checkoutTenantIds.push(tenantId);
            checkouts++;
          } catch (error) {
            // Counted and shown, not hidden: a refused checkout is a finding of the run.
            checkoutFailures.push((error as Error).message.slice(0, 300));
          }
        },
      });
    actions.sort((a, b) => a.atMs - b.atMs);

    // Events: when each was emitted (wall), for whom.
    const events: { at: number; tenantId: string; type: string }[] = [];
    const emit = plane.processor.emit.bind(plane.processor);
    plane.processor.emit = (type, object, previous) => {
      const customer = (object as { customer?: unknown }).customer;
      const t = typeof customer === 'string' ? byCustomer.get(customer) : undefined;
      if (t) events.push({ at: performance.now(), tenantId: t.tenantId, type });
      emit(type, object, previous);
    };

    // Clock -> wall: the wall time at which the Clock reached each step.
    const steps: { wall: number; clockMs: number }[] = [];
    const probes: { wall: number; due: boolean; any: boolean }[] = [];
    const probe = async () => {
      // "Work due": a second's worth of the budget waiting beyond the tenants the sweep has in
      // flight (they stay in the due index until committed; a lone due tenant cannot use a second).
      const backlog = limitPerSecond + IN_FLIGHT;
      const { due } = await meter.unmetered(() => listDueTenants(plane.clock.now(), backlog));
      probes.push({ wall: performance.now(), due: due.length >= backlog, any: due.length > 0 });
    };
    meter.startPhase();
    meter.recordCalls = true;
    const firstCall = plane.processor.calls.length;
    const lostBefore = budget.lost;
    mark = performance.now();
    const toStart = dayStart.getTime() - plane.clock.now().getTime();
    if (toStart > 0) plane.clock.advance(toStart / 1000);
    const dayWallStart = performance.now();
    steps.push({ wall: dayWallStart, clockMs: plane.clock.now().getTime() });
    let nextAction = 0;
    let lastProbe = 0;
    for (;;) {
      const elapsed = (performance.now() - dayWallStart - heldMs) / 1000;
      const target = dayStart.getTime() + Math.min(1, elapsed / daySeconds) * DAY * 1000;
      // Never while a webhook is on its way: its signature's time (the Clock) would age by the
      // compression factor in the few ms before it is checked (a compression artifact, not ours).
      await plane.processor.flushWebhooks();
      const ahead = target - plane.clock.now().getTime();
      if (ahead > 0) plane.clock.advance(ahead / 1000);
      steps.push({ wall: performance.now(), clockMs: plane.clock.now().getTime() });
      while (
        nextAction < actions.length &&
        (actions[nextAction]?.atMs ?? Infinity) <= plane.clock.now().getTime()
      )
        await actions[nextAction++]?.run();
      if (performance.now() - lastProbe >= 1000) {
        lastProbe = performance.now();
        await probe();
      }
      if (elapsed >= daySeconds) break;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    const daySecondsTaken = (performance.now() - mark) / 1000;
    log(`day of arrivals done in ${daySecondsTaken.toFixed(0)} s; draining`);

    // ---- drain: what came due is worked off (the schedule and nudges keep running) ----
    mark = performance.now();
    const drainDeadline = performance.now() + Math.max(600_000, daySeconds * 1000);
    for (;;) {
      await plane.processor.flushWebhooks();
      await probe();
      if (!probes.at(-1)?.any) {
        // Nothing due: one more sweep drains intake; done when it finds nothing to do.
        const summary = await plane.sweeper.runNow();
        if (summary.intake.applied + summary.intake.duplicates + summary.reconciled === 0) break;
        continue;
      }
      if (performance.now() > drainDeadline) throw new Error('the day did not drain within its deadline');
      // The schedule's stand-in, sooner: a backlog left at the day's end is worked off at once.
      plane.sweeper.nudge();
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
    meter.recordCalls = false;
    const day = meter.endPhase();
    const placesLost = budget.lost - lostBefore;
    const callsByPath: Record<string, number> = {};
    for (const call of plane.processor.calls.slice(firstCall)) {
      const key = `${call.method} ${call.path.replace(/\/(cus|sub|in|price|cs|pi|si)_[A-Za-z0-9]+/g, '/{id}')}`;
      callsByPath[key] = (callsByPath[key] ?? 0) + 1;
    }
    const drainSeconds = (performance.now() - mark) / 1000;
    log(`drained in ${drainSeconds.toFixed(0)} s`);

    // ---- a catch-up: work due all at once ----
    // On a machine that keeps up with the day, no backlog forms, and the share of the limit used
    // "while work is due" has no second to be measured in. So, as after a sweep outage or a burst
    // of renewals at one anchor, a quarter of the tenants (at most 120 s of the budget) come due
    // together, and the sweep works them off: its calls a second against the limit are the share.
    // Outside the tenant-day (its phase is not billed); its seconds are counted with the day's.
    const burstTenants = tenants.slice(0, Math.min(Math.floor(tenants.length / 4), limitPerSecond * 120));
    const burstAt = plane.clock.now().toISOString();
    for (let i = 0; i < burstTenants.length; i += 50)
      await meter.unmetered(() =>
        Promise.all(burstTenants.slice(i, i + 50).map((t) => lookNoLaterThan(t.tenantId, burstAt))),
      );
    meter.startPhase();
    meter.recordCalls = true;
    const burstMark = performance.now();
    for (;;) {
      await probe();
      if (!probes.at(-1)?.any) break;
      if (performance.now() > burstMark + 900_000)
        throw new Error('the catch-up did not drain in 15 minutes');
      plane.sweeper.nudge();
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
    meter.recordCalls = false;
    meter.endPhase();
    const burstSeconds = (performance.now() - burstMark) / 1000;
    log(`catch-up of ${burstTenants.length} tenants due at once worked off in ${burstSeconds.toFixed(0)} s`);

    // ---- the idle scheduled sweep (1,440 a day in the cloud, whatever the fleet) ----
    meter.startPhase();
    let idleSummary: Awaited<ReturnType<typeof plane.sweeper.runNow>> | undefined;
    for (let i = 0; i < 3; i++) idleSummary = await plane.sweeper.runNow();
    const idleSweep = per(meter.endPhase(), 3);
    // The cloud's reconciler handler logs one line per sweep (functions/reconciler/sweep.ts); the
    // local sweeper does not: its bytes, written by our logger as the handler writes them.
    const { counts: sweepLine } = await meter.measureRequest(async () =>
      logger.info('sweep', { ...idleSummary, transitions: 0 }),
    );

    // ---- the Dispatchers' idle polls, sampled (one request at a time, the schedule stopped) ----
    await plane.sweeper.stop();
    mark = performance.now();
    meter.startPhase();
    const polls = await samplePolls(plane, meter, tenants, options.pollSample ?? 100, rng);
    const tenantApi = await sampleTenantApi(plane, meter, tokens.slice(0, 10));
    meter.endPhase();
    const pollSeconds = (performance.now() - mark) / 1000;

    // ---- figures ----
    const wallOfClock = (clockMs: number): number => {
      const step = steps.find((s) => s.clockMs >= clockMs);
      return step ? step.wall : (steps.at(-1)?.wall ?? 0);
    };
    const eventLags: number[] = [];
    for (const event of events) {
      const trail = meter.trails.get(event.tenantId);
      if (!trail) continue;
      const markAt = firstAtOrAfter(trail.marks, event.at);
      const commit = markAt === undefined ? undefined : firstAtOrAfter(trail.commits, markAt);
      if (commit !== undefined) eventLags.push((commit - event.at) / 1000);
    }
    const recheckWaits: number[] = [];
    let notRechecked = 0;
    const serviceTimes: number[] = [];
    for (const t of tenants) {
      const trail = meter.trails.get(t.tenantId);
      if (!trail) continue;
      const dueWall = wallOfClock(t.dueAtMs);
      // Looked at before its re-check came due (an event): its next look moved a day on.
      if (trail.commits.some((c) => c >= dayWallStart && c < dueWall)) continue;
      const commit = firstAtOrAfter(trail.commits, dueWall);
      if (commit === undefined) notRechecked++;
      else recheckWaits.push((commit - dueWall) / 1000);
      for (const c of trail.commits) {
        const read = [...trail.reads].reverse().find((r) => r <= c);
        if (read !== undefined) serviceTimes.push((c - read) / 1000);
      }
    }
    // The busiest second: the most calls started in any [t, t + 1 s).
    const starts = meter.callStarts.map((c) => c.at).sort((a, b) => a - b);
    let processorMaxPerSecond = 0;
    for (let i = 0, j = 0; i < starts.length; i++) {
      while (j < starts.length && (starts[j] ?? 0) < (starts[i] ?? 0) + 1000) j++;
      processorMaxPerSecond = Math.max(processorMaxPerSecond, j - i);
    }
    // Seconds with work due throughout (probed due at both ends) and a sweep running all of it.
    const sweeping = (from: number, to: number) =>
      meter.sweepIntervals.some((s) => s.start <= from && s.end >= to);
    let busySeconds = 0;
    let busyCalls = 0;
    let idleDueSeconds = 0;
    for (let i = 0; i + 1 < probes.length; i++) {
      const a = probes[i] as { wall: number; due: boolean };
      const b = probes[i + 1] as { wall: number; due: boolean };
      if (!a.due || !b.due || b.wall - a.wall > 1500) continue;
      if (!sweeping(a.wall, b.wall)) {
        idleDueSeconds += (b.wall - a.wall) / 1000;
        continue;
      }
      busySeconds += (b.wall - a.wall) / 1000;
      busyCalls += starts.filter((s) => s >= a.wall && s < b.wall).length;
    }
    const busyShare = busySeconds > 0 ? busyCalls / (limitPerSecond * busySeconds) : 0;

    // Every renewal tenant's state against the emulator's (the honesty check).
    const renewing = tenants.filter((t) => t.renewsAtMs < dayStart.getTime() + DAY * 1000);
    const mismatches: string[] = [];
    for (const t of new Set([...renewing, ...cancelled])) {
      const stored = await meter.unmetered(() => getTenant(t.tenantId));
      const sub = plane.processor.state.subscriptions[t.subscriptionId];
      const expected = cancelled.includes(t)
        ? ['decommissioning']
        : sub?.status === 'past_due'
          ? ['past-due']
          : ['active'];
      if (!stored || !expected.includes(stored.billingState))
        mismatches.push(`${t.tenantId}: ours ${stored?.billingState}, processor ${sub?.status}`);
    }
    // Each Plan Change's last status (a change waiting for capacity may have moved on since) and
    // its execution's transitions; then the inventory against every placed Stack.
    for (const change of planChanges) {
      if (!change.changeId) continue;
      const stored = await meter.unmetered(() => getPlanChange(change.tenantId, change.changeId as string));
      if (stored && !change.status.startsWith('failed:')) change.status = stored.status;
      const execution = plane.cloud.stepFunctions.execution(change.changeId);
      if (execution) change.execution = { status: execution.status, transitions: execution.transitions };
    }
    const capacity = await checkCapacity(meter, [...tenants.map((t) => t.tenantId), ...checkoutTenantIds]);
    return {
      planChanges,
      stepFunctionTransitions: planChanges.reduce((sum, c) => sum + (c.execution?.transitions ?? 0), 0),
      capacity,
      tenants: tenants.length,
      stacks: tenants.reduce((sum, t) => sum + t.stacks.length, 0),
      daySeconds,
      wallSeconds: { seed: seedSeconds, day: daySecondsTaken, drain: drainSeconds, polls: pollSeconds },
      limitPerSecond,
      budgetPerSecond: shape.places * shape.windowsPerSecond,
      day,
      idleSweep,
      polls,
      tenantApi,
      renewals: renewing.length,
      failedRenewals: renewing.filter((t) => t.fails).length,
      cancels: cancelled.length,
      checkouts,
      checkoutFailures,
      placesLost,
      events: events.length,
      eventLags,
      recheckWaits,
      notRechecked,
      serviceTimes,
      processorMaxPerSecond,
      busyShare,
      busySeconds,
      idleDueSeconds,
      sharedCalls: meter.callStarts.filter((c) => c.share === 'shared').length,
      itemBytesPerTenant: itemBytes / Math.max(1, tenants.length),
      mismatches,
      sweepIntervals: meter.sweepIntervals.length,
      sweepLineBytes: sweepLine.logBytes,
      errors: meter.errors.slice(0, 5),
      print: meter.print,
      callsByPath,
      notRecheckedIds: tenants
        .filter((t) => (meter.trails.get(t.tenantId)?.commits.length ?? 0) === 0)
        .map((t) => t.tenantId)
        .slice(0, 5),
    };
  } finally {
    await plane.stop();
  }
};

export { percentile };
