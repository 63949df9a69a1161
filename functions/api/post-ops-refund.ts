import * as v from 'valibot';
import { refuse } from '#core/refusals/index.ts';
import { httpHandler } from '#http/handler.ts';
import { logger } from '#ports/logger.ts';
import { grantMoneyBack } from '../billing/money-back.ts';

/** What API Gateway's IAM authorizer puts in the event: the signed caller. */
interface IamAuthorizer {
  iam?: { userArn?: string; callerId?: string; accountId?: string };
}

const isoTime = v.pipe(
  v.string(),
  v.check((value) => !Number.isNaN(Date.parse(value)), 'must be an ISO 8601 time'),
);

/**
 * POST /ops/refunds: an operator grants a tenant's money-back refund after its email to support
 * (functions/billing/money-back.ts). API Gateway lets only IAM-signed requests through; the
 * caller is logged, never shown to the tenant. Answers the grant, or the refusal that says why.
 */
export const handler = httpHandler(
  {
    auth: 'none',
    body: v.strictObject({
      slug: v.pipe(v.string(), v.minLength(1)),
      email: v.pipe(v.string(), v.minLength(3)),
      requestedAt: v.optional(isoTime),
    }),
  },
  async ({ body, now, event }) => {
    const caller = (event.requestContext.authorizer as IamAuthorizer | undefined)?.iam;
    if (!caller?.userArn && !caller?.callerId) throw refuse('iam_required');
    const grant = await grantMoneyBack({
      slug: body.slug,
      email: body.email,
      ...(body.requestedAt ? { requestedAt: new Date(body.requestedAt) } : {}),
      now,
    });
    logger.info('money-back refund granted', {
      operator: caller.userArn ?? caller.callerId,
      tenantId: grant.tenantId,
      refunds: grant.refunds,
      refundedAmount: grant.refundedAmount,
      continued: grant.continued,
    });
    return { status: 200, body: grant };
  },
);
