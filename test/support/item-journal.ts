import { expect } from 'vitest';
import {
  acquireItemLease,
  type ItemChangeEntry,
  recordItemChange,
  releaseItemLease,
} from '#store/item-lease.ts';

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
