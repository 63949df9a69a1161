import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { GetQueueAttributesCommand, ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { grantMoneyBack } from '../../functions/billing/money-back.ts';
import { EMAIL_RETRY_CAP_MS } from '../../functions/core/email-retry.ts';
import { RECONCILE_BACKOFF_CAP_MS } from '../../functions/core/reconcile-backoff.ts';
import { listInventory, setCapacityTotal } from '../../functions/store/capacity.ts';
import { db, tableName } from '../../functions/store/client.ts';
import { listDueTenants } from '../../functions/store/due.ts';
import { keys } from '../../functions/store/keys.ts';
import { FaultBoard } from '../../lib/local/faults.ts';
import { type RunningControlPlane, startControlPlane } from '../../lib/local/server.ts';
import { standInQueueCounts } from '../../lib/local-data.ts';
import { armEveryKind, everyFaultKind } from './faults.ts';
import { cancelInPortal, TEST_CARDS, updateCardInPortal } from './hosted-pages.ts';

/**
 * The chaos run (issue 25): tenants go through the money path while every kind of fault of the
 * fault board fires on a share of the calls; then the faults stop, the sweep settles, and the
 * invariants are checked against the processor emulator's own records and our API. The driver is
 * a patient client: a call that failed (a 5xx, a lost answer) is made again with the same
 * Idempotency-Key, as the console does. `npm run test:chaos` (test/chaos/run.ts) and the short
 * version (test/e2e/chaos.test.ts) both run this.
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

interface Tenant {
  index: number;
  login: string;
  token: string;
  tenantId: string;
  email: string;
  card: string;
  stackId?: string;
  portalUrl?: string;
  /** What the path did to it. */
  refunded?: boolean;
  cancelled?: boolean;
  planChangeId?: string;
  exportId?: string;
}

/**
 * The least real time `until` waits by default: longer than the intake queue's visibility timeout
 * (120 s locally: an event whose apply failed comes back after it) and two reconcile backoffs.
 */
const UNTIL_PATIENCE_MS = 130_000;

/**
 * The least real time the settle waits for nothing to be owed: an event that failed three times
 * under the faults comes back 32 s after its last failure (functions/core/intake-retry.ts).
 */
const SETTLE_PATIENCE_MS = 45_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Runs `work` over `items`, `limit` at a time. */
const pool = async <T>(items: T[], limit: number, work: (item: T) => Promise<void>) => {
  const queue = [...items];
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      for (let item = queue.shift(); item !== undefined; item = queue.shift()) await work(item);
    }),
  );
};

/** The 409s that say to repeat the same request soon (the others are final answers). */
const RETRY_409 = new Set(['checkout_in_progress', 'subscription_busy', 'request_in_progress']);

/**
 * Answers that say the request wrote nothing and may be repeated (each route's contract): the
 * processor did not answer or was out of time (nothing charged, nothing held), the account's
 * rate limit, another change of the subscription under way. A step refused only with these is
 * the correct behaviour under sustained faults, not a step the driver failed to drive.
 */
const NOTHING_WRITTEN = (answer: Answer): boolean =>
  (answer.status === 502 && answer.body?.error?.code === 'processor_unavailable') ||
  answer.status === 429 ||
  (answer.status === 503 && answer.body?.error?.code === 'subscription_busy');

interface Answer {
  status: number;
  // biome-ignore lint/suspicious/noExplicitAny: the API's JSON, read freely
  body: any;
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
  const abandoned: string[] = [];
  const refusedRetryably: string[] = [];
  try {
    const call = async (
      method: string,
      urlPath: string,
      body?: unknown,
      token?: string,
      headers: Record<string, string> = {},
    ): Promise<Answer> => {
      try {
        const response = await fetch(`${plane.url}${urlPath}`, {
          method,
          headers: {
            ...(body === undefined ? {} : { 'content-type': 'application/json' }),
            ...(token ? { authorization: `Bearer ${token}` } : {}),
            ...headers,
          },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
          // A route answers within its own timeout (a sweep's is 60 s); longer is a hang.
          signal: AbortSignal.timeout(90_000),
        });
        const text = await response.text();
        let parsed: unknown;
        try {
          parsed = text ? JSON.parse(text) : undefined;
        } catch {
          parsed = text;
        }
        return { status: response.status, body: parsed };
      } catch (error) {
        return { status: 0, body: String(error) };
      }
    };
    /**
     * Calls until `done` holds for the answer, at most `withinMs` (a 5xx, 429, 409 or lost answer
     * is retried with the same key, as a patient client does: a 409 such as checkout_in_progress
     * says to repeat in a few seconds); anything else that is not done ends it. Answers the last.
     */
    const patiently = async (
      what: string,
      make: (key: string) => Promise<Answer>,
      done: (answer: Answer) => boolean,
      withinMs = 90_000,
    ): Promise<Answer | undefined> => {
      const key = `chaos-${randomBytes(8).toString('hex')}`;
      const deadline = performance.now() + withinMs;
      let last: Answer | undefined;
      const seen: string[] = [];
      let onlyNothingWritten = true;
      for (let attempt = 0; performance.now() < deadline; attempt++) {
        last = await make(key);
        if (done(last)) return last;
        if (!NOTHING_WRITTEN(last)) onlyNothingWritten = false;
        seen.push(`${last.status}${last.body?.error?.code ? ` ${last.body.error.code}` : ''}`);
        const retryable409 = last.status === 409 && RETRY_409.has(last.body?.error?.code);
        if (last.status !== 0 && last.status < 500 && last.status !== 429 && !retryable409) break;
        await sleep(Math.min(2_000, 100 * 2 ** attempt));
      }
      (onlyNothingWritten && seen.length > 0 ? refusedRetryably : abandoned).push(
        `${what}: ${last?.status} ${JSON.stringify(last?.body).slice(0, 200)} (answers: ${seen.join(', ')})`,
      );
      return undefined;
    };
    const sweep = () => call('POST', '/_local/sweep');
    const as = async (tenant: Tenant, method: string, urlPath: string, body?: unknown, key?: string) => {
      const answer = await call(method, urlPath, body, tenant.token, key ? { 'idempotency-key': key } : {});
      if (answer.status !== 401) return answer;
      const again = await call('POST', '/_local/sign-in', { login: tenant.login });
      if (again.status === 200) tenant.token = again.body.sessionToken;
      return call(method, urlPath, body, tenant.token, key ? { 'idempotency-key': key } : {});
    };
    /**
     * Sweeps (and polls the fleet) until `probe` holds: at least `rounds` times and at least
     * UNTIL_PATIENCE_MS. Rounds alone were too short with few tenants (a round takes a fraction of
     * a second): what failed under a fault comes back after a wait of real time, a tenant's
     * reconciliation after its 30 s backoff (doubling), an event after its visibility timeout.
     * Before, a tenant whose first Stack waited for either was counted as a give-up.
     */
    const until = async (
      what: string,
      probe: () => Promise<boolean>,
      rounds = 40,
      patienceMs = options.patienceMs ?? UNTIL_PATIENCE_MS,
    ) => {
      const patientUntil = performance.now() + patienceMs;
      for (let round = 0; round < rounds || performance.now() < patientUntil; round++) {
        if (await probe()) return true;
        if (round >= rounds) await sleep(1_000);
        await sweep();
        await call('POST', '/_local/fleet/tick');
      }
      abandoned.push(`${what}: never held`);
      return false;
    };

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

    const tenants: Tenant[] = [];
    const signUp = async (index: number) => {
      const login = `chaos-${options.seed}-${index}-${randomBytes(2).toString('hex')}`;
      const signed = await patiently(
        `sign in ${login}`,
        () => call('POST', '/_local/sign-in', { login }),
        (a) => a.status === 200,
      );
      if (!signed) return;
      const tenant: Tenant = {
        index,
        login,
        token: signed.body.sessionToken,
        tenantId: signed.body.tenantId,
        email: `${login}@users.code-host.test`,
        // Every fourth tenant's card pays the checkout and fails the renewal.
        card: index % 4 === 1 ? TEST_CARDS.failsLater : TEST_CARDS.succeeds,
      };
      const slug = await patiently(
        `slug ${login}`,
        () => as(tenant, 'POST', '/v1/tenant/slug', { slug: login }),
        (a) => a.status === 200 || (a.status === 409 && a.body?.code === 'slug_already_set'),
      );
      if (!slug) return;
      tenants.push(tenant);
    };

    const checkout = async (tenant: Tenant) => {
      const started = await patiently(
        `checkout ${tenant.login}`,
        (key) => as(tenant, 'POST', '/v1/billing/checkout', { plan: 'standard' }, key),
        (a) => a.status === 200 || a.status === 201,
      );
      if (!started) return;
      const sessionId = new URL(started.body.url).pathname.split('/').at(-1);
      await patiently(
        `pay ${tenant.login}`,
        () => call('POST', `/_local/processor/checkout/${sessionId}/pay`, { card: tenant.card }),
        (a) => a.status === 200 || a.status === 409,
      );
      await until(`first Stack of ${tenant.login}`, async () => {
        const stacks = await as(tenant, 'GET', '/v1/stacks');
        const first = stacks.body?.stacks?.[0];
        if (first) tenant.stackId = first.stackId;
        return Boolean(first);
      });
    };

    const startDispatcher = async (tenant: Tenant) => {
      if (!tenant.stackId) return;
      const issued = await patiently(
        `dispatcher credential ${tenant.login}`,
        () => as(tenant, 'POST', `/v1/stacks/${tenant.stackId}/dispatcher-credential`),
        (a) => a.status === 201,
      );
      if (!issued) return;
      await patiently(
        `dispatcher ${tenant.login}`,
        () => call('POST', '/_local/fleet/dispatchers', { credential: issued.body.credential }),
        (a) => a.status === 201,
      );
    };

    const addStack = (tenant: Tenant) =>
      patiently(
        `added Stack ${tenant.login}`,
        (key) => as(tenant, 'POST', '/v1/stacks', { plan: 'standard' }, key),
        (a) => a.status === 201,
      );

    const planChange = async (tenant: Tenant) => {
      if (!tenant.stackId) return;
      const confirmed = await patiently(
        `Plan Change ${tenant.login}`,
        (key) => as(tenant, 'POST', `/v1/stacks/${tenant.stackId}/plan-changes`, { plan: 'plus' }, key),
        (a) => a.status === 201 || a.status === 202 || a.status === 200,
      );
      if (confirmed?.body?.changeId) tenant.planChangeId = confirmed.body.changeId;
    };

    const startExport = async (tenant: Tenant) => {
      if (!tenant.stackId) return;
      const started = await patiently(
        `export ${tenant.login}`,
        (key) => as(tenant, 'POST', `/v1/stacks/${tenant.stackId}/exports`, undefined, key),
        (a) => a.status === 201 || a.status === 202 || a.status === 200,
      );
      if (started?.body?.exportId) tenant.exportId = started.body.exportId;
    };

    const refund = async (tenant: Tenant) => {
      for (let attempt = 0; attempt < 12; attempt++) {
        try {
          await grantMoneyBack({ slug: tenant.login, email: tenant.email, now: plane.clock.now() });
          tenant.refunded = true;
          return;
        } catch (error) {
          const code = (error as { code?: string }).code;
          if (code === 'already_granted') {
            tenant.refunded = true;
            return;
          }
          await sweep();
        }
      }
      abandoned.push(`refund ${tenant.login}: never granted`);
    };

    const portalOf = async (tenant: Tenant) => {
      const portal = await patiently(
        `portal ${tenant.login}`,
        () => as(tenant, 'POST', '/v1/billing/portal'),
        (a) => a.status === 200 || a.status === 201,
      );
      return portal?.body?.url as string | undefined;
    };

    const started = performance.now();
    await pool(
      Array.from({ length: options.tenants }, (_, i) => i),
      options.concurrency ?? 4,
      signUp,
    );
    await pool(tenants, options.concurrency ?? 4, async (tenant) => {
      await checkout(tenant);
      await startDispatcher(tenant);
      if (tenant.index % 3 === 0) await addStack(tenant);
      if (tenant.index % 5 === 2) await refund(tenant);
      else if (tenant.index % 3 === 1) await planChange(tenant);
      if (tenant.index % 4 === 3) await startExport(tenant);
    });
    log(`chaos: path driven up to the renewal in ${((performance.now() - started) / 1000).toFixed(1)} s`);

    // The renewal: a month passes; the failing cards' renewals fail.
    const advanced = await patiently(
      'clock advance',
      () => call('POST', '/_local/clock/advance', { seconds: 32 * 86_400 }),
      (a) => a.status === 200,
    );
    if (advanced) for (let round = 0; round < 3; round++) await sweep();
    await pool(tenants, options.concurrency ?? 4, async (tenant) => {
      if (tenant.refunded) return;
      const portalUrl = await portalOf(tenant);
      if (!portalUrl) return;
      if (tenant.card === TEST_CARDS.failsLater) {
        // Recovery: a working card pays what is due.
        await updateCardInPortal(portalUrl, TEST_CARDS.succeeds).catch(() => undefined);
      } else if (tenant.index % 6 === 0) {
        const done = await cancelInPortal(portalUrl).catch(() => undefined);
        if (done && done.status < 400) tenant.cancelled = true;
      }
    });

    // The faults stop; the sweep settles.
    board.disarm();
    const settleStarted = performance.now();
    await until(
      'Plan Changes and exports end',
      async () => {
        for (const tenant of tenants) {
          if (tenant.planChangeId) {
            const change = await as(tenant, 'GET', `/v1/plan-changes/${tenant.planChangeId}`);
            if (!['completed', 'rolled_back', 'cancelled', 'failed'].includes(change.body?.status))
              return false;
          }
          if (tenant.exportId && tenant.stackId) {
            const exported = await as(
              tenant,
              'GET',
              `/v1/stacks/${tenant.stackId}/exports/${tenant.exportId}`,
            );
            if (!['ready', 'failed'].includes(exported.body?.status)) return false;
          }
        }
        return true;
      },
      120,
    );
    // Every retry the sweep owes falls due: the longest backoff (a tenant's reconciliation, an
    // email) passes on the clock, which is data. Then it sweeps until nothing is owed: the intake
    // queue empty (an event that failed under a fault comes back within seconds, the retry rule of
    // functions/core/intake-retry.ts: 2, 8, 32 s) and no tenant due. Before, a tenant whose last
    // reconciliation failed just before the faults stopped still waited out its backoff when the
    // invariants were read ("billing state provisioning but the processor says active").
    await patiently(
      'clock past every backoff',
      () =>
        call('POST', '/_local/clock/advance', {
          seconds: Math.max(RECONCILE_BACKOFF_CAP_MS, EMAIL_RETRY_CAP_MS) / 1000 + 60,
        }),
      (a) => a.status === 200,
    );
    await until(
      'nothing owed (intake empty, no tenant due)',
      async () => {
        const intake = await intakeCounts(plane);
        if (intake.waiting + intake.inFlight > 0) return false;
        return (await listDueTenants(plane.clock.now(), 1)).due.length === 0;
      },
      3,
      Math.max(options.patienceMs ?? UNTIL_PATIENCE_MS, SETTLE_PATIENCE_MS),
    );
    // A look the sweep scheduled a moment ahead (a tenant polled again a minute later) is owed too:
    // five minutes pass on the clock before the last sweeps. Without it, a provisioning tenant whose
    // subscription the processor had canceled was read a minute before its look (seed 25, once).
    await patiently(
      'clock past the looks scheduled ahead',
      () => call('POST', '/_local/clock/advance', { seconds: 300 }),
      (a) => a.status === 200,
    );
    for (let round = 0; round < 3; round++) await sweep();
    await plane.mail.sync();
    const settledSeconds = (performance.now() - settleStarted) / 1000;

    const violations = await checkInvariants(plane, tenants, as);
    const deadLetters = await deadLettered(plane);
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

/** Every invariant of the issue, against the processor's records and our API (the restore drill's too). */
export const checkInvariants = async (
  plane: RunningControlPlane,
  tenants: Pick<Tenant, 'login' | 'tenantId' | 'token'>[],
  // biome-ignore lint/suspicious/noExplicitAny: each caller's own tenant shape
  as: (tenant: any, method: string, urlPath: string) => Promise<Answer>,
): Promise<string[]> => {
  const violations: string[] = [];
  const state = plane.processor.state;
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
  for (const mail of plane.mail.list()) {
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
  const intake = await intakeCounts(plane);
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

/** An SQS client of the plane's stand-in, for `use`. */
const withQueues = async <T>(
  plane: RunningControlPlane,
  use: (client: SQSClient) => Promise<T>,
): Promise<T> => {
  const environment = plane.cloud.environment;
  const client = new SQSClient({
    endpoint: plane.cloud.endpoints.sqs,
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
const intakeCounts = (plane: RunningControlPlane) =>
  withQueues(plane, async (client) => {
    const { Attributes } = await client.send(
      new GetQueueAttributesCommand({
        QueueUrl: plane.cloud.environment.PROCESSOR_EVENTS_QUEUE_URL ?? '',
        AttributeNames: ['All'],
      }),
    );
    const counts = standInQueueCounts(Attributes ?? {});
    const delayed = Number(Attributes?.ApproximateNumberOfMessagesDelayed ?? 0);
    return { waiting: counts.waiting + delayed, inFlight: counts.inFlight };
  });

/** The dead-lettered processor events, each with what it carried. */
const deadLettered = (plane: RunningControlPlane): Promise<string[]> =>
  withQueues(plane, async (client) => {
    const url = plane.cloud.environment.PROCESSOR_EVENTS_DLQ_URL ?? '';
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
