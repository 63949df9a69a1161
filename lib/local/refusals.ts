import { catalog, refuserOf } from '../../functions/core/refusals/catalog.ts';

/**
 * The refusals of the local stand-ins' own routes (`/_local/*`, the local Checkout page): each code
 * once, with its kind and its words. Codes the API has too (`invalid_field`, `invalid_body`,
 * `unknown_field`) are raised with the API's `refuse` (functions/core/refusals/index.ts).
 */
export const localRefusals = catalog({
  /** A local code-host login that a user already has. */
  login_taken: {
    kind: 'conflict',
    words: (facts: { login: string }) => `"${facts.login}" already belongs to a user; choose another login.`,
  },
  /** No simulated Dispatcher with this id (`id`), or none runs the Stack named (`stack`). */
  dispatcher_not_found: {
    kind: 'not_found',
    words: (facts: { id: string } | { stack: string }) =>
      'stack' in facts
        ? `No simulated Dispatcher runs the Stack "${facts.stack}": start one with POST /_local/fleet/dispatchers; GET /_local/fleet lists them.`
        : `No simulated Dispatcher "${facts.id}": GET /_local/fleet lists them.`,
  },
  /** The simulator could not start a Dispatcher: `why` is its own account. */
  dispatcher_not_started: { kind: 'conflict', words: (facts: { why: string }) => facts.why },
  checkout_session_not_found: {
    kind: 'not_found',
    field: 'sessionId',
    words: (facts: { sessionId: string }) =>
      `No Checkout Session "${facts.sessionId}": use the url POST /v1/billing/checkout answered.`,
  },
  checkout_session_inactive: {
    kind: 'conflict',
    words:
      'This Checkout Session is no longer open (paid already, or expired): start a new one with POST /v1/billing/checkout.',
  },
  /** The emulator declined the card: `decline` is its reason. */
  card_declined: {
    kind: 'payment_required',
    field: 'card',
    words: (facts: { decline: string }) => `${facts.decline} Pay with another card.`,
  },
});

/** Raises a local route's refusal by code: `throw refuseLocal('login_taken', { login })`. */
export const refuseLocal = refuserOf(localRefusals);
