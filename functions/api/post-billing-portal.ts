import { HttpError } from '#http/errors.ts';
import { httpHandler } from '#http/handler.ts';
import { viaProcessor } from '#http/processor-errors.ts';
import { config } from '#ports/config.ts';
import { createPortalSession } from '#ports/processor.ts';
import { getBilling } from '#store/billing.ts';

/** POST /v1/billing/portal: a Billing Portal session that only updates the card or cancels. */
export const handler = httpHandler(
  { auth: 'session', role: 'administrator' },
  async ({ principal, requestId }) => {
    const customerId = (await getBilling(principal.tenantId))?.customerId;
    if (!customerId) {
      throw new HttpError(
        409,
        'no_customer',
        'There is no billing account yet: complete a checkout first (POST /v1/billing/checkout).',
      );
    }
    const url = await viaProcessor(() =>
      createPortalSession({ customerId, returnUrl: config.tenantAppUrl(), requestId }),
    );
    return { status: 200, body: { url } };
  },
);
