import * as v from 'valibot';
import { BILLING_STATES } from '#core/billing-state.ts';
import { queryPrefix } from './client.ts';
import { keys } from './keys.ts';

const HistorySchema = v.object({
  at: v.string(),
  from: v.picklist(BILLING_STATES),
  to: v.picklist(BILLING_STATES),
  reason: v.string(),
});
export type HistoryEntry = v.InferOutput<typeof HistorySchema>;

/** The tenant-visible history of lifecycle transitions, oldest first (written by the sweep only). */
export const listHistory = (tenantId: string): Promise<HistoryEntry[]> =>
  queryPrefix(keys.tenant(tenantId).PK, 'HISTORY#', HistorySchema);
