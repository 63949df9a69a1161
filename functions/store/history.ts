import * as v from 'valibot';
import { BILLING_STATES } from '#core/billing-state.ts';
import { entity, listAll } from './entity.ts';

const HistorySchema = v.object({
  at: v.string(),
  from: v.picklist(BILLING_STATES),
  to: v.picklist(BILLING_STATES),
  reason: v.string(),
});
export type HistoryEntry = v.InferOutput<typeof HistorySchema>;

/** A tenant-visible lifecycle transition (in the tenant's partition, in time order). */
export const history = entity({
  type: 'history',
  key: (tenantId: string, at: string, sequence: number) => ({
    PK: `TENANT#${tenantId}`,
    SK: `HISTORY#${at}#${String(sequence).padStart(2, '0')}`,
  }),
  schema: HistorySchema,
  collection: (tenantId: string) => ({ PK: `TENANT#${tenantId}`, prefix: 'HISTORY#' }),
});

/** The tenant-visible history of lifecycle transitions, oldest first (written by the sweep only). */
export const listHistory = (tenantId: string): Promise<HistoryEntry[]> => listAll(history, tenantId);
