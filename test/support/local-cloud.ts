import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { expect, inject } from 'vitest';
import { TEST_CARDS } from './hosted-pages.ts';
import { jsonOf, sendJson } from './http-json.ts';
import { endpointsEnvironment, type LocalTarget, runOps, setCapacity } from './local-server.ts';

/**
 * What an e2e test does to a local control plane over HTTP: the API as a tenant, the `/_local`
 * routes that step time (sweep, fleet tick, clock), the processor emulator's own API, the sent
 * mail, and `npm run ops`. Every e2e file runs against a shared server it claims, one of those the
 * e2e setup starts (`sharedCloud()`, test/support/e2e-setup.ts); a file that needs a server of its
 * own passes it.
 *
 * On the shared server tests share nothing but the server: each makes its own tenants (a unique
 * login, `uniqueLogin`), reads state relative to them, ticks only its own Dispatchers, and gives
 * back what it changed for everyone (a Plan filled, a release gate down) in a `finally`. The clock
 * is the server's: it only moves forward, so a test reads times from its own tenants (and a
 * session outlived by a move is renewed by `as`).
 */

const DAY = 86_400;

export { DAY };

/** The shared server this test process claimed (index into the setup's list), once claimed. */
let claimed: number | undefined;
/** The claim's folder, while this process holds it. */
let claimFolder: string | undefined;

/**
 * How long a file waits for a server: one file's tests at most, as a claim is given back when a
 * file is done (the longest e2e file takes about three minutes on the CI machine).
 */
const CLAIM_WAIT_MS = 5 * 60_000;

/** Gives the claimed shared server back (when the file's tests are done); nothing when none is held. */
export const releaseServer = (): void => {
  if (claimFolder === undefined) return;
  const folder = claimFolder;
  claimFolder = undefined;
  claimed = undefined;
  try {
    if (Number(readFileSync(path.join(folder, 'pid'), 'utf8')) !== process.pid) return;
  } catch {
    return;
  }
  rmSync(folder, { recursive: true, force: true });
};

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/**
 * Claims a shared server no other running test file holds: a claim is a folder in the run's folder
 * (made atomically, naming this process), given back when the file's tests are done
 * (`releaseServer`, an afterAll of test/support/e2e-file.ts) or, failing that, when this process
 * exits; one whose process is gone is taken over, and so is one this process holds from an earlier
 * file. Two files run at once (vitest.config.ts) and there are as many servers. (Given back only at
 * exit, a claim outlived its file for as long as Vitest took to stop the worker, which it does not
 * wait for: on the CI machine files waited more than a minute for servers no test was using.)
 * (Vitest's VITEST_POOL_ID is no help: both e2e workers report 1.)
 */
const claimServer = (count: number): number => {
  if (claimed !== undefined) return claimed;
  const runDirectory = inject('e2eRunDirectory');
  const deadline = Date.now() + CLAIM_WAIT_MS;
  for (;;) {
    for (let index = 0; index < count; index++) {
      const claim = path.join(runDirectory, `claim-${index}`);
      try {
        mkdirSync(claim);
      } catch {
        const holder = Number(readFileSync(path.join(claim, 'pid'), { encoding: 'utf8', flag: 'a+' }));
        if (holder === 0 || (holder !== process.pid && alive(holder))) continue;
        // Its process is gone without giving it back, or is this one: taken over.
      }
      writeFileSync(path.join(claim, 'pid'), String(process.pid));
      claimed = index;
      claimFolder = claim;
      process.once('exit', releaseServer);
      return index;
    }
    if (Date.now() > deadline)
      throw new Error(
        `no shared server came free in ${CLAIM_WAIT_MS / 60_000} minutes (claims in ${runDirectory})`,
      );
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 100);
  }
};

/**
 * The local control plane this e2e file uses, one of those the e2e setup started (as many as files
 * run at once), claimed for as long as the file runs: two files that run at once never share a
 * server's clock, sweep, release gates or Plans filled.
 */
export const sharedCloud = (): LocalTarget => {
  const clouds = inject('sharedClouds');
  const cloud = clouds[claimServer(clouds.length)];
  if (!cloud) throw new Error('the e2e setup started no shared server (test/support/e2e-setup.ts)');
  const { url, dataDirectory, logFile } = cloud;
  return {
    url,
    dataDirectory,
    output: () => readFileSync(logFile, 'utf8'),
    environment: () => endpointsEnvironment(dataDirectory),
  };
};

/** A login (and slug) no other test of the run uses: `prefix-` and six hex digits. */
export const uniqueLogin = (prefix: string) => `${prefix}-${randomBytes(3).toString('hex')}`;

/**
 * Runs `probe` until `done` holds for what it answers (a fresh answer each time, never a fixed
 * wait), and answers that; fails with the last answer after `timeoutMs`.
 */
export const eventually = async <T>(
  probe: () => Promise<T>,
  done: (value: T) => boolean,
  options: { timeoutMs?: number; intervalMs?: number; what?: string } = {},
): Promise<T> => {
  const deadline = Date.now() + (options.timeoutMs ?? 30_000);
  for (;;) {
    const value = await probe();
    if (done(value)) return value;
    if (Date.now() > deadline)
      throw new Error(`${options.what ?? 'the condition'} never held; last: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 100));
  }
};

export interface Answer {
  status: number;
  // biome-ignore lint/suspicious/noExplicitAny: tests read response JSON freely
  body: any;
  /** The body as received. */
  text: string;
}

export interface CallOptions {
  body?: unknown;
  token?: string;
  headers?: Record<string, string>;
}

export interface Tenant {
  login: string;
  token: string;
  tenantId: string;
  email: string;
}

/** A paying tenant's first Stack, and its reference Dispatcher when one was started. */
export interface PayingTenant extends Tenant {
  stackId: string;
  stackName: string;
  location: string;
  dispatcherId: string;
  /** The Stack's Dispatcher credential, to call the Dispatcher routes as that Dispatcher. */
  dispatcherCredential: string;
}

export interface PayingOptions {
  card?: string;
  /** Start the first Stack's reference Dispatcher (default true); `localHostExecutor` as it reports. */
  dispatcher?: boolean | { localHostExecutor: boolean };
}

export interface ProcessorSubscription {
  id: string;
  customer: string;
  status: string;
  metadata: { tenantId?: string };
  items: {
    data: {
      price: { id: string; lookup_key: string; unit_amount: number };
      quantity: number;
      current_period_end: number;
    }[];
  };
}

export interface ProcessorInvoice {
  id: string;
  status: string;
  billing_reason: string;
  created: number;
  total: number;
  amount_due: number;
  amount_paid: number;
  status_transitions: { paid_at: number | null };
  total_discount_amounts: { amount: number }[];
  lines: {
    data: {
      amount: number;
      discount_amounts: { amount: number }[];
      parent: {
        subscription_item_details?: { proration?: boolean } | null;
        invoice_item_details?: { proration?: boolean } | null;
      };
    }[];
  };
}

/** A Plan Change's statuses from a confirmation with room for the new Plan to completed. */
export const PLAN_CHANGE_STEPS = ['waiting_for_work', 'preparing', 'switching', 'verifying', 'completed'];
/** The same for a change that first waited for capacity. */
export const QUEUED_PLAN_CHANGE_STEPS = ['waiting_for_capacity', ...PLAN_CHANGE_STEPS];
/** The statuses a Plan Change went through, from its history. */
export const statusesOf = (change: { history: { status: string }[] }) => change.history.map((h) => h.status);

/** The sum of an invoice's proration lines. */
export const prorationOf = (invoice: ProcessorInvoice | undefined) =>
  (invoice?.lines.data ?? [])
    .filter((l) => l.parent.subscription_item_details?.proration || l.parent.invoice_item_details?.proration)
    .reduce((sum, l) => sum + l.amount, 0);

export interface Slot {
  location: string;
  plan: string;
  total: number;
  used: number;
  reserved: number;
  free: number;
}

/** The rows of `npm run ops -- capacity list`. */
export const parseCapacity = (listed: string): Slot[] =>
  listed
    .split('\n')
    .map((line) => line.trim().split(/\s+/))
    .filter((cells) => cells.length === 6 && /^\d+$/.test(cells[2] ?? ''))
    .map(([location, plan, total, used, reserved, free]) => ({
      location: location ?? '',
      plan: plan ?? '',
      total: Number(total),
      used: Number(used),
      reserved: Number(reserved),
      free: Number(free),
    }));

/**
 * The client of one local control plane. `target` is read on every call, so a file that restarts
 * its own server keeps its helpers.
 */
export const localClient = (target: () => LocalTarget) => {
  const call = async (method: string, path: string, options: CallOptions = {}): Promise<Answer> => {
    const { status, text } = await sendJson(`${target().url}${path}`, method, options);
    return { status, body: jsonOf(text, undefined), text };
  };
  const ok = (answer: Answer, status = 200) => {
    expect(answer.status, `${answer.status} ${answer.text.slice(0, 500)}`).toBe(status);
    return answer;
  };

  /** One reconciler sweep (the shared server sweeps only when asked); answers its summary. */
  const sweep = async () => ok(await call('POST', '/_local/sweep')).body;
  /**
   * The named Dispatchers poll once (on the shared server a test names its own and leaves the
   * others alone); without a name, every Dispatcher. Answers the state of those that polled.
   */
  const tick = async (...dispatcherIds: string[]) =>
    ok(await call('POST', '/_local/fleet/tick', dispatcherIds.length ? { body: { dispatcherIds } } : {})).body
      .dispatchers as {
      dispatcherId: string;
      lastError: string | null;
      admission: string;
      // biome-ignore lint/suspicious/noExplicitAny: the simulator's state, read freely
      [key: string]: any;
    }[];
  const advance = async (seconds: number) =>
    ok(await call('POST', '/_local/clock/advance', { body: { seconds } })).body;
  const now = async () => (await call('GET', '/_local/clock')).body.now as string;
  const nowSeconds = async () => Math.floor(Date.parse(await now()) / 1000);

  const signIn = async (login: string) =>
    ok(await call('POST', '/_local/sign-in', { body: { login } })).body as {
      sessionToken: string;
      tenantId: string;
      userId: string;
      role: string;
    };

  /** A call as the tenant; a session outlived by time travel is renewed by signing in again. */
  const as = async (
    tenant: Tenant,
    method: string,
    path: string,
    body?: unknown,
    headers?: Record<string, string>,
  ): Promise<Answer> => {
    const once = () =>
      call(method, path, {
        ...(body === undefined ? {} : { body }),
        token: tenant.token,
        ...(headers ? { headers } : {}),
      });
    const answer = await once();
    if (answer.status !== 401) return answer;
    tenant.token = (await signIn(tenant.login)).sessionToken;
    return once();
  };

  /** The tenant confirms a Plan Change of its Stack to `plan` (with `key` as its Idempotency-Key); the answer. */
  const confirmPlanChange = (tenant: Tenant & { stackId: string }, plan: string, key?: string) =>
    as(
      tenant,
      'POST',
      `/v1/stacks/${tenant.stackId}/plan-changes`,
      { plan },
      key ? { 'idempotency-key': key } : undefined,
    );

  /** A tenant signed in with its slug (its login, unique in the run) locked, not yet paying. */
  const newTenant = async (prefix: string): Promise<Tenant> => {
    const login = uniqueLogin(prefix);
    const { sessionToken, tenantId } = await signIn(login);
    ok(await call('POST', '/v1/tenant/slug', { body: { slug: login }, token: sessionToken }));
    return { login, token: sessionToken, tenantId, email: `${login}@users.code-host.test` };
  };

  /** The checkout's Checkout Session paid with `card` through the pay route (webhooks delivered). */
  const pay = async (checkoutUrl: string, card: string = TEST_CARDS.succeeds) => {
    const sessionId = new URL(checkoutUrl).pathname.split('/').at(-1);
    return call('POST', `/_local/processor/checkout/${sessionId}/pay`, { body: { card } });
  };

  /** Sweeps until the tenant has `count` Stacks; answers them. */
  const stacksOnceSwept = async (tenant: Tenant, count = 1) =>
    (
      await eventually(
        async () => {
          await sweep();
          return (await as(tenant, 'GET', '/v1/stacks')).body;
        },
        (body) => body?.stacks?.length === count,
        { what: `${count} Stack(s) for ${tenant.login}` },
      )
    ).stacks;

  /** Starts the reference Dispatcher of a tenant's Stack where the Stack is placed. */
  const startDispatcher = async (
    tenant: Tenant,
    stack: { stackId: string; location?: string },
    localHostExecutor = false,
  ) => {
    const issued = ok(await as(tenant, 'POST', `/v1/stacks/${stack.stackId}/dispatcher-credential`), 201);
    const started = ok(
      await call('POST', '/_local/fleet/dispatchers', {
        body: {
          credential: issued.body.credential,
          localHostExecutor,
          ...(stack.location ? { location: stack.location } : {}),
        },
      }),
      201,
    );
    return {
      dispatcherId: started.body.dispatcherId as string,
      credential: issued.body.credential as string,
    };
  };

  /**
   * A tenant that checked out `plan` and paid (4242 unless `card`), swept until its first Stack
   * exists, whose Stack runs a reference Dispatcher (unless `dispatcher: false`).
   */
  const payingTenant = async (prefix: string, plan: string, options: PayingOptions = {}) => {
    const tenant = await newTenant(prefix);
    const checkout = ok(await as(tenant, 'POST', '/v1/billing/checkout', { plan }));
    expect((await pay(checkout.body.url, options.card)).body).toEqual({ paid: true });
    const [stack] = await stacksOnceSwept(tenant);
    expect(stack.plan).toBe(plan);
    const wanted = options.dispatcher ?? true;
    const dispatcher = wanted
      ? await startDispatcher(tenant, stack, typeof wanted === 'object' && wanted.localHostExecutor)
      : { dispatcherId: '', credential: '' };
    return {
      ...tenant,
      stackId: stack.stackId as string,
      stackName: stack.name as string,
      location: stack.location as string,
      dispatcherId: dispatcher.dispatcherId,
      dispatcherCredential: dispatcher.credential,
    } satisfies PayingTenant;
  };

  /** Sweeps until the tenant's billing state is `state`; answers its billing status. */
  const billingStateOnceSwept = (tenant: Tenant, state: string) =>
    eventually(
      async () => {
        await sweep();
        return (await as(tenant, 'GET', '/v1/billing/status')).body;
      },
      (status) => status?.billingState === state,
      { what: `${tenant.login} ${state}` },
    );

  /** The processor emulator's own API with the local key: GET, or a form POST. */
  const processor = async (path: string, form?: Record<string, string>) => {
    const environment = target().environment();
    const response = await fetch(`${environment.PROCESSOR_API_URL}${path}`, {
      method: form ? 'POST' : 'GET',
      headers: {
        authorization: `Bearer ${environment.PROCESSOR_API_KEY}`,
        ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
      },
      ...(form ? { body: new URLSearchParams(form) } : {}),
    });
    const body = await response.json();
    expect(response.status, JSON.stringify(body)).toBe(200);
    // biome-ignore lint/suspicious/noExplicitAny: the processor's JSON, read freely
    return body as any;
  };
  const subscriptionOf = async (tenant: { tenantId: string; login: string }) => {
    const found = ((await processor('/v1/subscriptions?status=all')).data as ProcessorSubscription[]).find(
      (s) => s.metadata.tenantId === tenant.tenantId,
    );
    if (!found) throw new Error(`no subscription for ${tenant.login}`);
    return found;
  };
  /** The subscription's items as `lookup_key x quantity`, sorted. */
  const itemsOf = async (tenant: Tenant) =>
    (await subscriptionOf(tenant)).items.data.map((i) => `${i.price.lookup_key}x${i.quantity}`).sort();
  /** The tenant's invoices, oldest first. */
  const invoicesOf = async (tenant: Tenant) =>
    (
      (await processor(`/v1/invoices?customer=${(await subscriptionOf(tenant)).customer}`))
        .data as ProcessorInvoice[]
    )
      .slice()
      .sort((a, b) => a.created - b.created);
  /** Moves the clock just past the latest period end of `tenants` (each renews once), then sweeps. */
  const pastRenewalOf = async (...tenants: Tenant[]) => {
    const ends = await Promise.all(
      tenants.map(async (t) => (await subscriptionOf(t)).items.data[0]?.current_period_end ?? 0),
    );
    await advance(Math.max(...ends) - (await nowSeconds()) + 60);
    await sweep();
  };

  /** The emails sent to `address`, oldest first. */
  const mailTo = async (address: string) =>
    ok(await call('GET', `/_local/mail?to=${encodeURIComponent(address)}`)).body.emails as {
      to: string;
      subject: string;
      text: string;
      sentAt: string;
    }[];

  /** `npm run ops -- ...` against this server's data folder, as an operator would: exit code and output. */
  const ops = (args: string[], environment: Record<string, string> = {}) =>
    runOps(target().dataDirectory, args, environment);
  const opsOk = async (...args: string[]) => {
    const done = await ops(args);
    expect(done.stderr).toBe('');
    expect(done.code).toBe(0);
    return done.stdout;
  };
  /** The capacity of `eu` as `npm run ops -- capacity list` prints it. */
  const inventory = async () => parseCapacity(await opsOk('capacity', 'list', '--region', 'eu'));
  const setTotal = async (location: string, plan: string, total: number, create = false) => {
    const done = await setCapacity(target().dataDirectory, { location, plan, total }, create);
    expect(done.stderr).toBe('');
    expect(done.code).toBe(0);
    return done.stdout;
  };
  /**
   * Leaves no free place for `plan` anywhere in `eu`: each location's total down to what is used
   * and held. Answers how to give back every total it took (never below what is used by then).
   */
  const fillPlan = async (plan: string) => {
    const before = (await inventory()).filter((slot) => slot.plan === plan);
    await Promise.all(before.map((slot) => setTotal(slot.location, plan, slot.used + slot.reserved)));
    return async () => {
      const after = await inventory();
      await Promise.all(
        before.map((slot) => {
          const now = after.find((s) => s.location === slot.location && s.plan === plan);
          return setTotal(slot.location, plan, Math.max(slot.total, (now?.used ?? 0) + (now?.reserved ?? 0)));
        }),
      );
    };
  };
  /** Runs `body` while `plan` has no free place in `eu` (`fillPlan`), and gives the places back. */
  const withPlanFull = async <T>(plan: string, body: () => Promise<T>): Promise<T> => {
    const giveBack = await fillPlan(plan);
    try {
      return await body();
    } finally {
      await giveBack();
    }
  };

  return {
    call,
    ok,
    sweep,
    tick,
    advance,
    now,
    nowSeconds,
    signIn,
    as,
    confirmPlanChange,
    newTenant,
    pay,
    stacksOnceSwept,
    startDispatcher,
    payingTenant,
    billingStateOnceSwept,
    processor,
    subscriptionOf,
    itemsOf,
    invoicesOf,
    pastRenewalOf,
    mailTo,
    ops,
    opsOk,
    inventory,
    setTotal,
    fillPlan,
    withPlanFull,
  };
};

export type LocalClient = ReturnType<typeof localClient>;
