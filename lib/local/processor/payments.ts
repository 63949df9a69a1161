import type { EmulatorContext } from './context.ts';
import { fail, missing, StripeApiError } from './errors.ts';
import { type FormObject, int, str, stringMap } from './form.ts';

/** Payment intents and refunds. */

export const getPaymentIntent = (ctx: EmulatorContext, id: string) =>
  ctx.render.paymentIntent(ctx.state.paymentIntents[id] ?? fail(missing('payment_intent', id)));

export const createRefund = (ctx: EmulatorContext, params: FormObject) => {
  const intentId = str(params.payment_intent);
  if (!intentId)
    throw new StripeApiError(400, 'Missing required param: payment_intent.', { param: 'payment_intent' });
  const intent =
    ctx.state.paymentIntents[intentId] ?? fail(missing('payment_intent', intentId, 'payment_intent'));
  if (intent.status !== 'succeeded')
    throw new StripeApiError(400, 'This PaymentIntent has no successful charge to refund.', {
      code: 'charge_not_refundable',
    });
  const remaining = intent.amount - intent.amountRefunded;
  const amount = int(params.amount) ?? remaining;
  if (amount <= 0 || amount > remaining) {
    throw new StripeApiError(
      400,
      `Refund amount ($${(amount / 100).toFixed(2)}) is greater than unrefunded amount on charge ($${(remaining / 100).toFixed(2)})`,
      { code: 'charge_already_refunded', param: 'amount' },
    );
  }
  intent.amountRefunded += amount;
  const id = ctx.newId('re');
  ctx.state.refunds[id] = {
    id,
    amount,
    paymentIntent: intentId,
    status: 'succeeded',
    reason: str(params.reason) ?? null,
    metadata: stringMap(params.metadata),
    created: ctx.nowSeconds(),
  };
  const refund = ctx.render.refund(ctx.state.refunds[id] as never);
  ctx.emit('refund.created', refund);
  return refund;
};

export const listRefunds = (ctx: EmulatorContext, params: FormObject) => ({
  object: 'list',
  data: Object.values(ctx.state.refunds)
    .filter((r) => !str(params.payment_intent) || r.paymentIntent === str(params.payment_intent))
    .sort((a, b) => b.created - a.created)
    .map((r) => ctx.render.refund(r)),
  has_more: false,
  url: '/v1/refunds',
});
