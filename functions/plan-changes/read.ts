import { listPlanChanges } from '#store/plan-changes.ts';
import { requirePlanChange, requireStack } from '../lookups/index.ts';
import { planChangeView } from './record.ts';

/** The tenant's Plan Changes, newest first; one Stack's with `stackId` (another tenant's Stack: 404). */
export const listPlanChangeViews = async (tenantId: string, stackId?: string) => {
  if (stackId !== undefined) await requireStack(tenantId, stackId);
  return (await listPlanChanges(tenantId, stackId)).reverse().map(planChangeView);
};

export const readPlanChange = async (tenantId: string, changeId: string) =>
  planChangeView(await requirePlanChange(tenantId, changeId));

/**
 * The audit export: one JSON line per change, oldest first, with the same redaction as the
 * tenant-facing record (no processor id, no operator, no storage locator).
 */
export async function* planChangeExportLines(tenantId: string, exportedAt: Date): AsyncGenerator<string> {
  for (const change of await listPlanChanges(tenantId))
    yield `${JSON.stringify({ ...planChangeView(change), exportedAt: exportedAt.toISOString() })}\n`;
}
