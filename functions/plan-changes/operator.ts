import { requirePlanChange, requireTenantBySlug } from '../lookups/index.ts';
import { planChangeView } from './record.ts';

/**
 * THE operator's view of a Plan Change (`npm run ops -- plan-change show`): what the tenant sees,
 * and beside it what only operators may read: the Dispatcher's own words about a failed step (it
 * may name storage locations, provider identifiers and operators), the workflow's step and
 * deadlines, and the free text of a record written before reason codes were kept. No tenant route
 * reaches this module.
 */
export const operatorPlanChange = async (params: { slug: string; changeId: string }) => {
  const { tenantId } = await requireTenantBySlug(params.slug);
  const change = await requirePlanChange(tenantId, params.changeId);
  return {
    tenantId,
    slug: params.slug,
    tenantView: planChangeView(change),
    operator: {
      step: change.step,
      stepStartedAt: change.stepStartedAt,
      stepVersion: change.stepVersion ?? null,
      region: change.region,
      dispatcherReason: change.dispatcherReason ?? null,
      legacyOutcome: change.outcome ?? null,
      commitAttempts: change.commitAttempts,
    },
  };
};
