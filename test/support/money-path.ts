import { randomBytes } from 'node:crypto';
import { EMAIL_RETRY_CAP_MS } from '../../functions/core/email-retry.ts';
import { RECONCILE_BACKOFF_CAP_MS } from '../../functions/core/reconcile-backoff.ts';
import { cancelInPortal, TEST_CARDS, updateCardInPortal } from './hosted-pages.ts';
import { jsonOf, sendJson } from './http-json.ts';

/**
 * The money path as a patient client drives it, shared by the chaos run (test/support/chaos.ts:
 * faults at every dependency) and the crash run (test/crash/run.ts: our process killed and
 * restarted): tenants sign in, check out and pay, start a Dispatcher, add Stacks, change Plans,
 * export, get a refund, and the driver sweeps until what it waits for holds. A call that failed (a
 * 5xx, a lost answer, a refused connection) is made again with the same Idempotency-Key, as the
 * console does. What differs between the runs (how a Checkout is paid, where the Dispatchers run,
 * how a refund is granted) is the world's.
 */

export interface MoneyPathWorld {
  /** Our API. */
  url: () => string;
  /** Each tenant's login starts with it. */
  loginPrefix: string;
  /** The least real time `until` waits by default (ms). */
  patienceMs?: number;
  /**
   * How long a step is retried before the driver gives it up (ms; default 90 s). The crash run's
   * is longer: each restart of our process takes seconds on a loaded machine, and a step may meet
   * several in a row.
   */
  retryWithinMs?: number;
  /** Pays a Checkout Session (the hosted page's form): 200 paid, 409 no longer open. */
  pay: (sessionId: string, card: string) => Promise<Answer>;
  /** Starts a Dispatcher with a Stack's credential: 201 started. */
  startDispatcher: (credential: string) => Promise<Answer>;
  /** One poll of every Dispatcher. */
  tickFleet: () => Promise<void>;
  /** The operator grants the tenant's money-back refund (throws a Refusal-like error with a `code`). */
  grantMoneyBack: (tenant: Tenant) => Promise<void>;
  /** Moves the clock on (and the processor's billing with it): 200 when done. */
  advanceClock: (seconds: number) => Promise<Answer>;
  /** Told of every answer our API gave (not of a refused or lost connection): the crash run times a life's work by it. */
  answered?: (status: number) => void;
}

export interface Tenant {
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
export const UNTIL_PATIENCE_MS = 130_000;

/**
 * The least real time the settle waits for nothing to be owed: an event that failed three times
 * under the faults comes back 32 s after its last failure (functions/core/intake-retry.ts).
 */
export const SETTLE_PATIENCE_MS = 45_000;

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Runs `work` over `items`, `limit` at a time. */
export const pool = async <T>(items: T[], limit: number, work: (item: T) => Promise<void>) => {
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
export const NOTHING_WRITTEN = (answer: Answer): boolean =>
  (answer.status === 502 && answer.body?.error?.code === 'processor_unavailable') ||
  answer.status === 429 ||
  (answer.status === 503 && answer.body?.error?.code === 'subscription_busy');

export interface Answer {
  status: number;
  // biome-ignore lint/suspicious/noExplicitAny: the API's JSON, read freely
  body: any;
}

/** The driver over `world`: its calls, its waits, and each step of the money path. */
export const moneyPathDriver = (world: MoneyPathWorld) => {
  const abandoned: string[] = [];
  const refusedRetryably: string[] = [];
  const call = async (
    method: string,
    urlPath: string,
    body?: unknown,
    token?: string,
    headers: Record<string, string> = {},
  ): Promise<Answer> => {
    try {
      const { status, text } = await sendJson(`${world.url()}${urlPath}`, method, {
        body,
        token,
        headers,
        // A route answers within its own timeout (a sweep's is 60 s); longer is a hang.
        signal: AbortSignal.timeout(90_000),
      });
      world.answered?.(status);
      return { status, body: jsonOf(text, text) };
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
    withinMs = world.retryWithinMs ?? 90_000,
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
    patienceMs = world.patienceMs ?? UNTIL_PATIENCE_MS,
  ) => {
    const patientUntil = performance.now() + patienceMs;
    for (let round = 0; round < rounds || performance.now() < patientUntil; round++) {
      if (await probe()) return true;
      if (round >= rounds) await sleep(1_000);
      await sweep();
      await world.tickFleet();
    }
    abandoned.push(`${what}: never held`);
    return false;
  };

  const tenants: Tenant[] = [];
  const signUp = async (index: number) => {
    const login = `${world.loginPrefix}-${index}-${randomBytes(2).toString('hex')}`;
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
      () => world.pay(sessionId ?? '', tenant.card),
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
      () => world.startDispatcher(issued.body.credential),
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
    // Twelve tries at least, and (where steps are retried longer) until the step's time is out.
    const deadline = performance.now() + (world.retryWithinMs ?? 0);
    for (let attempt = 0; attempt < 12 || performance.now() < deadline; attempt++) {
      if (attempt >= 12) await sleep(2_000);
      try {
        await world.grantMoneyBack(tenant);
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
  /**
   * `count` tenants through the path, `concurrency` at a time, up to the renewal and (unless
   * `renewal` is false: the crash run's short version) after it.
   */
  const drive = async (
    count: number,
    concurrency: number,
    log: (line: string) => void,
    label: string,
    { renewal = true }: { renewal?: boolean } = {},
  ) => {
    const started = performance.now();
    await pool(
      Array.from({ length: count }, (_, i) => i),
      concurrency,
      signUp,
    );
    await pool(tenants, concurrency, async (tenant) => {
      await checkout(tenant);
      await startDispatcher(tenant);
      if (tenant.index % 3 === 0) await addStack(tenant);
      if (tenant.index % 5 === 2) await refund(tenant);
      else if (tenant.index % 3 === 1) await planChange(tenant);
      if (tenant.index % 4 === 3) await startExport(tenant);
    });
    log(`${label}: path driven up to the renewal in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    if (!renewal) return;

    // The renewal: a month passes; the failing cards' renewals fail.
    const advanced = await patiently(
      'clock advance',
      () => world.advanceClock(32 * 86_400),
      (a) => a.status === 200,
    );
    if (advanced) for (let round = 0; round < 3; round++) await sweep();
    await pool(tenants, concurrency, async (tenant) => {
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
  };

  /**
   * After the faults or kills stop: sweeps until every Plan Change and export has ended and nothing
   * is owed (`owed`: the intake queue's counts, how many tenants are due).
   */
  const settle = async (owed: {
    intake: () => Promise<{ waiting: number; inFlight: number }>;
    dueCount: () => Promise<number>;
  }) => {
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
      () => world.advanceClock(Math.max(RECONCILE_BACKOFF_CAP_MS, EMAIL_RETRY_CAP_MS) / 1000 + 60),
      (a) => a.status === 200,
    );
    await until(
      'nothing owed (intake empty, no tenant due)',
      async () => {
        const intake = await owed.intake();
        if (intake.waiting + intake.inFlight > 0) return false;
        return (await owed.dueCount()) === 0;
      },
      3,
      Math.max(world.patienceMs ?? UNTIL_PATIENCE_MS, SETTLE_PATIENCE_MS),
    );
    // A look the sweep scheduled a moment ahead (a tenant polled again a minute later) is owed too:
    // five minutes pass on the clock before the last sweeps. Without it, a provisioning tenant whose
    // subscription the processor had canceled was read a minute before its look (seed 25, once).
    await patiently(
      'clock past the looks scheduled ahead',
      () => world.advanceClock(300),
      (a) => a.status === 200,
    );
    for (let round = 0; round < 3; round++) await sweep();
  };

  return {
    drive,
    settle,
    call,
    patiently,
    sweep,
    as,
    until,
    tenants,
    signUp,
    checkout,
    startDispatcher,
    addStack,
    planChange,
    startExport,
    refund,
    portalOf,
    abandoned,
    refusedRetryably,
  };
};
