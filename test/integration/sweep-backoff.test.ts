import { randomUUID } from 'node:crypto';
import { BatchWriteCommand, GetCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { installClock } from '#ports/clock.ts';
import { db, tableName } from '#store/client.ts';
import { listDueTenants } from '#store/due.ts';
import { keys } from '#store/keys.ts';
import { DUE_SHARDS, newTenantItem, tenant as tenantEntity } from '#store/tenants.ts';
import { runSweep } from '../../functions/reconciler/run-sweep.ts';

/*
 * These tests count what the sweep finds due: the table and intake queue are this file's own
 * (test/support/worker-env.ts), so no other file's tenants show up here.
 */
let current = new Date('2026-06-01T12:00:00.000Z');
const advance = (seconds: number) => {
  current = new Date(current.getTime() + seconds * 1000);
};

beforeAll(() => {
  installClock({ now: () => current });
});

/** One sweep with no time budget: what it finds never depends on how fast the machine is. */
const sweep = () => runSweep(Number.POSITIVE_INFINITY);

/** A new tenant id whose due entries land on `shard`. */
const idOnShard = (shard: number): string => {
  for (;;) {
    const tenantId = randomUUID();
    if (tenantEntity.index.due(tenantId, 'x').GSI2PK === `DUE#${shard}`) return tenantId;
  }
};

/**
 * Due tenants at `dueAt`: `healthy` ones reconcile without the processor (provisioning, nothing
 * bought); failing ones hold a billing state no rule knows, so their reconciliation always throws.
 */
const putDueTenants = async (
  tenants: { tenantId: string; failing?: boolean; reconcileFailures?: number }[],
  dueAt: Date,
) => {
  const items = tenants.map(({ tenantId, failing, reconcileFailures }) => ({
    ...newTenantItem(tenantId, dueAt),
    ...(failing ? { billingState: 'no-such-state' } : {}),
    ...(reconcileFailures ? { reconcileFailures } : {}),
    dueAt: dueAt.toISOString(),
    ...tenantEntity.index.due(tenantId, dueAt.toISOString()),
  }));
  for (let start = 0; start < items.length; start += 25)
    await db().send(
      new BatchWriteCommand({
        RequestItems: {
          [tableName()]: items.slice(start, start + 25).map((Item) => ({ PutRequest: { Item } })),
        },
      }),
    );
};

const tenantItem = async (tenantId: string) =>
  (
    await db().send(
      new GetCommand({ TableName: tableName(), Key: keys.tenant(tenantId), ConsistentRead: true }),
    )
  ).Item;

/** Runs sweeps until nothing is due now (the earlier tests' backed-off tenants wait in the future). */
const settle = async () => {
  for (let i = 0; i < 10; i++) if ((await sweep()).reconciled === 0) return;
};

describe('due tenants are shared fairly across the shards', () => {
  it('a shard with many due tenants takes only its share of the limit; the others get theirs', async () => {
    advance(3600);
    await settle();
    const crowded = Array.from({ length: 12 }, () => ({ tenantId: idOnShard(0) }));
    const others = Array.from({ length: DUE_SHARDS - 1 }, (_, i) => ({ tenantId: idOnShard(i + 1) }));
    await putDueTenants([...crowded, ...others], current);
    const { due } = await listDueTenants(current, 8);
    expect(due).toHaveLength(8);
    const ids = due.map((entry) => entry.tenantId);
    for (const other of others) expect(ids).toContain(other.tenantId);
    expect(ids.filter((id) => crowded.some((c) => c.tenantId === id))).toHaveLength(8 - others.length);
    // Round-robin: the first DUE_SHARDS entries come from DUE_SHARDS different shards.
    const firstShards = due
      .slice(0, DUE_SHARDS)
      .map((entry) => tenantEntity.index.due(entry.tenantId, 'x').GSI2PK);
    expect(new Set(firstShards).size).toBe(DUE_SHARDS);
    // What one shard leaves unused goes to the others: a limit larger than all of them takes all.
    expect((await listDueTenants(current, 100)).due).toHaveLength(12 + others.length);
    await settle();
  });
});

describe('a tenant whose reconciliation always fails', () => {
  it('is retried after 30 s, then 60 s, ...; the count is on its item and in the sweep summary', async () => {
    advance(3600);
    await settle();
    const failing = idOnShard(2);
    await putDueTenants([{ tenantId: failing, failing: true }], current);

    const first = await sweep();
    expect(first).toMatchObject({ failed: 1, backedOff: 1 });
    expect(await tenantItem(failing)).toMatchObject({
      reconcileFailures: 1,
      dueAt: new Date(current.getTime() + 30_000).toISOString(),
    });

    // Not retried before its time, however many sweeps run.
    advance(29);
    expect(await sweep()).toMatchObject({ failed: 0, backedOff: 0 });
    expect(await tenantItem(failing)).toMatchObject({ reconcileFailures: 1 });

    advance(1);
    expect(await sweep()).toMatchObject({ failed: 1, backedOff: 1 });
    expect(await tenantItem(failing)).toMatchObject({
      reconcileFailures: 2,
      dueAt: new Date(current.getTime() + 60_000).toISOString(),
    });
    advance(60);
    await sweep();
    expect(await tenantItem(failing)).toMatchObject({
      reconcileFailures: 3,
      dueAt: new Date(current.getTime() + 120_000).toISOString(),
    });
  });

  it('cannot starve the others: a shard full of failing tenants, and the rest are still reconciled', async () => {
    advance(3600);
    await settle();
    // More failing tenants on one shard than one read of the due index takes.
    const failing = Array.from({ length: 130 }, () => ({ tenantId: idOnShard(0), failing: true }));
    const healthy = [1, 2, 3].map((shard) => ({ tenantId: idOnShard(shard) }));
    await putDueTenants(failing, current);
    await putDueTenants(healthy, new Date(current.getTime() + 1));
    advance(1);

    const summary = await sweep();
    expect(summary.reconciled).toBe(healthy.length);
    expect(summary.failed).toBe(failing.length);
    expect(summary.backedOff).toBe(failing.length);
    for (const { tenantId } of healthy) expect((await tenantItem(tenantId))?.dueAt).toBeUndefined();
    // The next sweep, straight after, finds nobody due: the failing ones wait out their backoff.
    expect(await sweep()).toMatchObject({ failed: 0, reconciled: 0 });
  });

  it('a successful reconciliation clears the failure count', async () => {
    advance(3600);
    await settle();
    const recovered = idOnShard(3);
    await putDueTenants([{ tenantId: recovered, reconcileFailures: 4 }], current);
    expect(await sweep()).toMatchObject({ reconciled: 1, failed: 0 });
    const item = await tenantItem(recovered);
    expect(item?.reconcileFailures).toBeUndefined();
    expect(item?.dueAt).toBeUndefined();
  });
});
