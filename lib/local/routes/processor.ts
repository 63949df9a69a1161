import * as v from 'valibot';
import { refuse } from '../../../functions/core/refusals/index.ts';
import { httpHandler } from '../../../functions/http/handler.ts';
import type { AdapterRoute } from '../http-adapter.ts';
import { type ProcessorEmulator, StripeApiError } from '../processor/emulator.ts';
import { cardBehavior } from '../processor/state.ts';
import { refuseLocal } from '../refusals.ts';

const CardSchema = v.pipe(
  v.string('a card number such as "4242 4242 4242 4242"'),
  v.regex(/^[\d -]{12,30}$/, 'a card number of 12 to 19 digits, such as "4242 4242 4242 4242"'),
);

const SESSION_ID = /^cs_\w{1,200}$/;

/**
 * Pays a Checkout Session without a browser: what the emulator's hosted Checkout page does when
 * its form is submitted (`payCheckout`, after the emulator's per-request tick), then waits until
 * the processor's webhooks have reached the control plane's intake. Bad input is refused before
 * the emulator is touched.
 */
export const payRoute = (emulator: ProcessorEmulator): AdapterRoute => ({
  method: 'POST',
  path: '/_local/processor/checkout/{sessionId}/pay',
  auth: 'none',
  handler: httpHandler(
    { auth: 'none', body: v.strictObject({ card: CardSchema }) },
    async ({ body, pathParameters }) => {
      const sessionId = pathParameters.sessionId ?? '';
      if (!SESSION_ID.test(sessionId))
        throw refuse(
          'invalid_field',
          {
            what: 'Path parameter "sessionId" is invalid: expected a Checkout Session id (cs_...), the last part of the checkout url.',
          },
          { field: 'sessionId' },
        );
      if (cardBehavior(body.card) === 'invalid')
        throw refuse(
          'invalid_field',
          {
            what: 'Field "card" is invalid: expected a valid card number (it fails the Luhn check); test cards: 4242 4242 4242 4242, 4000 0000 0000 0002, 4000 0000 0000 0341.',
          },
          { field: 'card' },
        );
      let result: ReturnType<ProcessorEmulator['payCheckout']>;
      try {
        emulator.tick();
        result = emulator.payCheckout(sessionId, body.card);
      } catch (error) {
        if (!(error instanceof StripeApiError)) throw error;
        if (error.code === 'resource_missing') throw refuseLocal('checkout_session_not_found', { sessionId });
        throw refuseLocal('checkout_session_inactive');
      } finally {
        // On disk before it is answered, as the emulator's own HTTP front does for its writes.
        emulator.saveBeforeAnswer();
        await emulator.flushWebhooks();
      }
      if (!result.ok) throw refuseLocal('card_declined', { decline: result.message });
      return { status: 200, body: { paid: true } };
    },
  ),
});
