import { leavingRefusal } from '#core/leaving.ts';
import { refuse } from '#core/refusals/index.ts';
import { config } from '#ports/config.ts';
import { viaProcessor } from '#ports/processor/errors.ts';
import { createPortalSession } from '#ports/processor/portal.ts';
import { getBilling } from '#store/billing.ts';
import type { Tenant } from '#store/tenants.ts';

/** THE portal use case: a Billing Portal session that only updates the card or cancels. */
export const openPortal = async (params: { tenant: Tenant; requestId: string }): Promise<{ url: string }> => {
  const leaving = leavingRefusal(params.tenant);
  if (leaving) throw leaving;
  const customerId = (await getBilling(params.tenant.tenantId))?.customerId;
  if (!customerId) throw refuse('no_customer');
  const url = await viaProcessor(() =>
    createPortalSession({ customerId, returnUrl: config.tenantAppUrl(), requestId: params.requestId }),
  );
  return { url };
};
