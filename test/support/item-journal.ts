import { expect } from 'vitest';
import {
  acquireItemLease,
  type ItemChangeEntry,
  readItemLease,
  recordItemChange,
  releaseItemLease,
} from '#store/item-lease.ts';
import { withItemLease } from '../../functions/billing/item-changes.ts';

/**
 * Writes `entries` into the tenant's item-lease journal as a writer that stopped after writing them
 * leaves them: the lease taken at `now`, each entry recorded, the lease given back (the journal
 * stays for its owners).
 */
export const journalAsLeft = async (tenantId: string, entries: ItemChangeEntry[], now: Date) => {
  const lease = await acquireItemLease(tenantId, 'stopped-writer', now, 30);
  if (!('holder' in lease)) throw new Error('the lease was busy');
  for (const entry of entries) expect(await recordItemChange(lease, entry, now)).toBe(true);
  await releaseItemLease(tenantId, lease.holder);
};

/** The tenant's journal as `[owner, state]` pairs, in owner order (none: no lease item at all). */
export const journalStates = async (tenantId: string) =>
  ((await readItemLease(tenantId))?.entries ?? []).map((e) => [e.owner, e.state]).sort();

/**
 * Another writer of the tenant's items: `run()` takes the lease, and counts its work only once
 * settling what earlier holders left let it start (`runs()`).
 */
export const countingHolder = (tenantId: string) => {
  let runs = 0;
  return {
    run: () =>
      withItemLease(tenantId, 'another-writer', async () => {
        runs++;
      }),
    runs: () => runs,
  };
};
