import { expect } from 'vitest';
import type { PlanChangeExecution } from '#core/plan-change.ts';
import { PLAN_VALUES, type PlanValue } from '#core/plans.ts';
import { listInventory, setCapacityTotal } from '#store/capacity.ts';
import { keys } from '#store/keys.ts';
import { handler as commitBillingTask } from '../../functions/workflow-tasks/commit-billing.ts';
import { gatewayForFile } from './file-gateway.ts';
import { type CallOptions, type TestControlPlane, uniqueRegion } from './gateway.ts';
import { partitionItems } from './stored.ts';
import { sleep, waitFor } from './wait.ts';

/** The statuses of a change that ran to its end without waiting: none skipped. */
export const RAN_THROUGH = ['waiting_for_work', 'preparing', 'switching', 'verifying', 'completed'];

/**
 * What the Plan Change tests share: paying tenants with a running reference Dispatcher, reading a
 * change and waiting for its statuses (ticking the fleet), waiting for the workflow to have run a
 * task again, the change's emails, the places of a region, and the commit "door" that holds the
 * CommitBilling task until the test lets it run.
 */

/** A tenant as the test gateway makes it (signed in, slug locked, in a Home Region). */
export interface SignedInTenant {
  tenantId: string;
  login: string;
  sessionToken: string;
  region: string;
}

/** `total` places of every Plan (or as many as `capacity` says for one) in `location` of `region`. */
export const openPlaces = async (
  api: TestControlPlane,
  region: string,
  total: number,
  capacity: Partial<Record<PlanValue, number>> = {},
  location = `${region}-a`,
) => {
  for (const plan of PLAN_VALUES)
    await setCapacityTotal({ region, location, plan, total: capacity[plan] ?? total }, api.clock.now());
};

/** Issues the Stack's Dispatcher credential and starts a reference Dispatcher with it; its id. */
export const startDispatcher = async (
  api: TestControlPlane,
  tenant: { sessionToken: string },
  location: string,
  stackId = 'primary',
) => {
  const issued = await api.call('POST', `/v1/stacks/${stackId}/dispatcher-credential`, {
    token: tenant.sessionToken,
  });
  const started = await api.call('POST', '/_local/fleet/dispatchers', {
    body: { credential: issued.json.credential, location },
  });
  expect(started.status).toBe(201);
  return started.json.dispatcherId as string;
};

/**
 * The door of the CommitBilling task: each change's commit runs (the real task) only when the test
 * lets it. Give the gateway `stepFunctions: { handlers: door.handlers }` and `beforeStop:
 * door.openAll` (held tasks would keep the workflows from stopping).
 */
export const commitDoor = () => {
  const arrivals = new Map<string, number>();
  const permits = new Map<string, number>();
  let opened = false;
  const door = {
    /** How often the change's commit came to the door. */
    arrivals: (changeId: string) => arrivals.get(changeId) ?? 0,
    /** Lets `count` commits of the change through (Infinity: every later one). */
    allow(changeId: string, count = 1) {
      permits.set(changeId, (permits.get(changeId) ?? 0) + count);
    },
    /** Lets every commit through from now on. */
    openAll() {
      opened = true;
    },
    async pass(input: PlanChangeExecution): Promise<PlanChangeExecution> {
      const id = input.changeId;
      arrivals.set(id, door.arrivals(id) + 1);
      while (!opened && (permits.get(id) ?? 0) <= 0) await sleep(5);
      permits.set(id, (permits.get(id) ?? 0) - 1);
      return commitBillingTask(input);
    },
    handlers: { CommitBilling: (input: PlanChangeExecution) => door.pass(input) },
  };
  return door;
};
export type CommitDoor = ReturnType<typeof commitDoor>;

/** The Plan Change helpers of one file's control plane (and its commit door, if it has one). */
export const planChangeWorld = (api: TestControlPlane, door?: CommitDoor) => {
  /**
   * A call as the tenant. Tests travel in time past a session's life: an expired session is
   * renewed (signed in again, as the tenant would) and the call made again.
   */
  const asTenant = async (
    tenant: Pick<SignedInTenant, 'login' | 'sessionToken'>,
    method: string,
    url: string,
    options: Omit<CallOptions, 'token'> = {},
  ) => {
    const first = await api.call(method, url, { ...options, token: tenant.sessionToken });
    if (first.status !== 401) return first;
    tenant.sessionToken = (await api.signIn(tenant.login)).sessionToken;
    return api.call(method, url, { ...options, token: tenant.sessionToken });
  };

  /**
   * A paying tenant in a Home Region of its own (`places` places of every Plan, or as `capacity`
   * says) whose first Stack has a running reference Dispatcher.
   */
  const payingWithDispatcher = async (
    plan: PlanValue,
    options: { places?: number; capacity?: Partial<Record<PlanValue, number>>; card?: string } = {},
  ) => {
    const region = uniqueRegion();
    await openPlaces(api, region, options.places ?? 3, options.capacity);
    const tenant = await api.subscribe({ plan, region, ...(options.card ? { card: options.card } : {}) });
    const dispatcherId = await startDispatcher(api, tenant, `${region}-a`);
    const [stack] = (await api.call('GET', '/v1/stacks', { token: tenant.sessionToken })).json.stacks;
    return {
      ...tenant,
      region,
      dispatcherId,
      stackId: stack.stackId as string,
      stackName: stack.name as string,
    };
  };

  /** Confirms a change of the tenant's Stack (its first unless it names one) to `plan`. */
  const confirm = (tenant: SignedInTenant & { stackId?: string }, plan: string, key?: string) =>
    asTenant(tenant, 'POST', `/v1/stacks/${tenant.stackId ?? 'primary'}/plan-changes`, {
      body: { plan },
      ...(key ? { headers: { 'idempotency-key': key } } : {}),
    });

  /** The change as the tenant reads it. */
  // biome-ignore lint/suspicious/noExplicitAny: tests read response JSON freely
  const read = async (tenant: SignedInTenant, changeId: string): Promise<any> =>
    (await asTenant(tenant, 'GET', `/v1/plan-changes/${changeId}`)).json;

  /** Ticks the fleet (each Dispatcher polls once) until the change reaches one of `statuses`. */
  const until = (tenant: SignedInTenant, changeId: string, statuses: string[], rounds = 300) =>
    waitFor(
      `the change reaching ${statuses.join('/')}`,
      async () => {
        const change = await read(tenant, changeId);
        return statuses.includes(change.status) && change;
      },
      { rounds, everyMs: 15, step: () => api.fleet.tick(), showing: () => read(tenant, changeId) },
    );

  /** Waits for the change to end, and checks that it completed through every step, none skipped. */
  const completes = async (tenant: SignedInTenant, changeId: string) => {
    const done = await until(tenant, changeId, ['completed', 'rolled_back']);
    expect(done.status).toBe('completed');
    expect(done.history.map((entry: { status: string }) => entry.status)).toEqual(RAN_THROUGH);
    return done;
  };

  /**
   * Waits until the change's execution has run the Task state `state` `times` more times, each
   * from start to end, after this call: the positive signal that the workflow had its look (a
   * test may then assert that the look changed nothing).
   */
  const nextRuns = async (changeId: string, state: string, times = 1) => {
    const entered = () => api.stepFunctions.execution(changeId)?.entered[state] ?? 0;
    // Entering it once more ends the run under way; each entry after that ends a whole run.
    const target = entered() + times + 1;
    await waitFor(`${state} running ${times} more time(s) for ${changeId}`, () => entered() >= target, {
      showing: () => api.stepFunctions.execution(changeId),
    });
  };

  /** Ticks the fleet until the change's commit came to the door `arrivals` times. */
  const atCommit = async (changeId: string, arrivals = 1) => {
    if (!door) throw new Error('planChangeWorld(api, door) has the door');
    await waitFor(
      `the billing commit of ${changeId} (arrival ${arrivals})`,
      () => door.arrivals(changeId) >= arrivals,
      {
        everyMs: 15,
        step: () => api.fleet.tick(),
      },
    );
  };

  /** Confirms the change of the tenant's Stack to `plan` and waits until its commit is at the door. */
  const heldAtCommit = async (tenant: SignedInTenant & { stackId?: string }, plan: string) => {
    const confirmed = await confirm(tenant, plan);
    expect(confirmed.status).toBe(202);
    const changeId = confirmed.json.changeId as string;
    await atCommit(changeId);
    expect(door?.arrivals(changeId)).toBe(1);
    return { confirmed, changeId };
  };

  /** A new paying tenant on `from` whose Stack's change to `to` waits at the commit's door. */
  const changeAtTheDoor = async (from: PlanValue, to: PlanValue, options: { places?: number } = {}) => {
    const tenant = await payingWithDispatcher(from, options);
    return { tenant, ...(await heldAtCommit(tenant, to)) };
  };

  return {
    asTenant,
    payingWithDispatcher,
    confirm,
    read,
    until,
    completes,
    nextRuns,
    atCommit,
    heldAtCommit,
    changeAtTheDoor,
  };
};

/** The tenant's audit export of its Plan Changes, as the gateway answers it (its body is NDJSON). */
export const planChangeExport = (api: TestControlPlane, tenant: { sessionToken: string }) =>
  api.gateway.dispatch({
    method: 'GET',
    url: '/v1/plan-changes/export',
    headers: { authorization: `Bearer ${tenant.sessionToken}` },
    body: Buffer.alloc(0),
  });

/** The emails of a change (its outbox items, one key per ending), in the order of those endings. */
// biome-ignore lint/suspicious/noExplicitAny: tests read stored items freely
export const outboxFor = async (changeId: string): Promise<any[]> => {
  const found = [];
  for (const status of ['completed', 'rolled_back', 'expired', 'cancelled', 'superseded'])
    found.push(...(await partitionItems(keys.outbox(`plan-change:${changeId}:${status}`).PK)));
  return found;
};

/** A slot of the region's inventory. */
export const slotOf = async (region: string, location: string, plan: string) =>
  (await listInventory(region)).slots.find((s) => s.location === location && s.plan === plan);

/** No slot of the region ever has more places in use, or in use and held, than it has. */
export const placesHold = async (region: string) => {
  const inventory = await listInventory(region);
  for (const slot of inventory.slots) {
    const held = inventory.reservations.filter((r) => r.location === slot.location && r.plan === slot.plan);
    expect(slot.used).toBeLessThanOrEqual(slot.total);
    expect(slot.used + held.length).toBeLessThanOrEqual(slot.total);
  }
  return inventory;
};

/**
 * This file's control plane (gatewayForFile, with the processor) whose CommitBilling task waits at
 * a door (commitDoor), and its Plan Change helpers.
 */
export const gatewayWithCommitDoor = () => {
  const door = commitDoor();
  const { api, emulator } = gatewayForFile(
    { processor: true, stepFunctions: { waitMs: 10, handlers: door.handlers } },
    { beforeStop: door.openAll },
  );
  return { api, emulator, door, ...planChangeWorld(api, door) };
};
