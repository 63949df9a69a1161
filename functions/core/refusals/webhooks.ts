import { catalog } from './catalog.ts';

/**
 * The refusals of the processor's webhook intake, and of the sweep's outbox as an operator drives
 * it (`outbox retry`): each code once, with its kind and its words.
 */
export const webhooksRefusals = catalog({
  /** A webhook without the processor's signature header. */
  missing_signature: { kind: 'invalid', words: 'The Stripe-Signature header is required.' },
  /** A webhook whose signature does not hold for its body (or is too old). */
  invalid_signature: {
    kind: 'invalid',
    words: 'The signature does not match the payload, or it is too old.',
  },
  /** A signed body that is not a processor event: `what` says what it is instead. */
  invalid_payload: {
    kind: 'invalid',
    words: (facts: { what: string }) =>
      `${facts.what}: send a processor event, a JSON object with "id", "type" and "data.object".`,
  },
  /** No email in the outbox has this key. */
  not_found: {
    kind: 'not_found',
    words: (facts: { key: string }) =>
      `No email in the outbox has the key "${facts.key}": copy it from \`outbox list\`.`,
  },
  /** Only a parked (failed) email can be retried: `why` says what the email is instead. */
  not_parked: {
    kind: 'conflict',
    words: (facts: { key: string; why: string }) => `The email "${facts.key}" ${facts.why}`,
  },
});
