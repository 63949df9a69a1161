import Stripe from 'stripe';
import { secretValue } from '../secrets.ts';

/** Seconds a webhook signature stays acceptable (Stripe's default). */
export const WEBHOOK_TOLERANCE_SECONDS = 300;

/** A verified processor event, or a thrown error when the signature does not hold. */
export const verifyWebhook = async (
  rawBody: Buffer,
  signature: string,
  nowMs: number,
): Promise<Stripe.Event> =>
  Stripe.webhooks.constructEvent(
    rawBody,
    signature,
    await secretValue('PROCESSOR_WEBHOOK_SECRET'),
    WEBHOOK_TOLERANCE_SECONDS,
    undefined,
    nowMs,
  );
