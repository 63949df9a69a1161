import { reportIsStale } from '#core/dispatcher.ts';
import { priceLockView } from '#core/price-lock.ts';
import { clock } from '#ports/clock.ts';
import { listStacks, type StoredStack } from '#store/stacks.ts';

/**
 * What a tenant sees of a Stack: name and address, Plan, hosted resources and caps, location,
 * lifecycle, the desired-state version and the one its Dispatcher last applied, health, and its
 * Founding Price Lock. Never a
 * provider id, a storage locator or a credential.
 */
export const stackView = (stack: StoredStack) => {
  const applied = stack.observed?.appliedVersion ?? null;
  const lifecycle =
    stack.lifecycle === 'running' && (applied === null || applied < 1) ? 'creating' : stack.lifecycle;
  return {
    stackId: stack.stackId,
    name: stack.name,
    address: `https://${stack.name}`,
    plan: stack.plan,
    resources: stack.resources,
    caps: {
      runCap: stack.runCap,
      reserveCap: stack.reserveCap,
      watchedProjectsCap: stack.watchedProjectsCap,
    },
    location: stack.location,
    lifecycle,
    teardownAt: stack.teardownAt ?? null,
    desiredStateVersion: stack.desiredVersion,
    appliedVersion: applied,
    health: stack.observed?.health ?? 'unknown',
    activeRuns: stack.observed?.activeRuns ?? 0,
    lastReportAt: stack.observed?.reportedAt ?? null,
    // The Dispatcher reports at least every heartbeat: two missed (docs/dispatcher.md) and it is silent.
    reportStale: stack.lifecycle !== 'torn_down' && reportIsStale(stack.observed?.reportedAt, clock().now()),
    // The `ambient` Credential kind is offered only where the Dispatcher reports a host Executor.
    localHostExecutor: stack.observed?.localHostExecutor ?? false,
    projects: stack.projectCount,
    createdAt: stack.createdAt,
    /** The Founding Price Lock (null: the Stack never had one); the billed price id is never shown. */
    priceLock: priceLockView(stack.priceLock, stack.plan),
  };
};

export const listStackViews = async (tenantId: string) =>
  (await listStacks(tenantId)).sort((a, b) => a.createdAt.localeCompare(b.createdAt)).map(stackView);
