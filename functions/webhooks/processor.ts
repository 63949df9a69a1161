import { refuse } from '#core/refusals/index.ts';
import { httpHandler } from '#http/handler.ts';
import { crashPoint } from '#ports/crash-point.ts';
import { logger } from '#ports/logger.ts';
import { recordWebhook } from '#ports/metrics.ts';
import { isProcessorEvent } from '#ports/processor/events.ts';
import { verifyWebhook } from '#ports/processor/webhooks.ts';
import { enqueueProcessorEvent } from '#ports/queue.ts';
import { SecretNotSet } from '#ports/secrets.ts';
import { nudgeSweep } from '../reconciler/nudge.ts';

/** Stripe's largest event payloads stay well below this (docs/api/openapi.json states it). */
export const MAX_WEBHOOK_BYTES = 512 * 1024;

const notAnEvent = (what: string) => refuse('invalid_payload', { what });

/**
 * POST /v1/webhooks/processor: verifies the processor's signature on the raw body and puts the
 * event on the intake queue. It never touches tenant state: the reconciler sweep decides.
 */
export const handler = httpHandler(
  { auth: 'none', rawBody: { maxBytes: MAX_WEBHOOK_BYTES } },
  async ({ rawBody, headers, now }) => {
    const signature = headers['stripe-signature'];
    if (!signature) {
      recordWebhook('signature_failure');
      throw refuse('missing_signature');
    }
    let event: unknown;
    try {
      event = await verifyWebhook(rawBody, signature, now.getTime());
    } catch (error) {
      // Our secret is not set: our fault, not the sender's. A 5xx, so the processor sends it again later.
      if (error instanceof SecretNotSet) throw error;
      // The body is parsed only once its signature holds: a parse failure means a signed non-JSON body.
      if (error instanceof SyntaxError) {
        logger.warn('processor webhook refused', { reason: 'signed body is not JSON' });
        throw notAnEvent('The signed body is not JSON');
      }
      logger.warn('processor webhook refused', { reason: (error as Error).message });
      recordWebhook('signature_failure');
      throw refuse('invalid_signature');
    }
    if (!isProcessorEvent(event)) {
      logger.warn('processor webhook refused', { reason: 'signed body is not a processor event' });
      throw notAnEvent('The signed body is not a processor event');
    }
    await enqueueProcessorEvent({ id: event.id, type: event.type }, rawBody.toString('utf8'));
    crashPoint('intake.enqueued');
    recordWebhook('verified');
    // The schedule is the backstop, not the pace: ask for a sweep now, once per short window
    // however many events arrive (never fatal to the intake).
    await nudgeSweep(now).catch((error: unknown) =>
      logger.warn('could not nudge the sweep', { error: error as Error }),
    );
    return { status: 200, body: { received: true } };
  },
);
