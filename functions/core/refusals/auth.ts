import { catalog } from './catalog.ts';

/** What every refused sign-in ends with: a sign-in starts again from its beginning. */
export const START_AGAIN = 'Start again at /v1/auth/sign-in.';

/** The refusals of sign-in: each code once, with its kind and its words. */
export const authRefusals = catalog({
  /** The sign-in's `state` is absent, unknown or used, or another browser started it: `what` says which. */
  invalid_state: {
    kind: 'invalid',
    words: (facts: { what: string }) => `${facts.what} ${START_AGAIN}`,
  },
  state_expired: { kind: 'invalid', words: `This sign-in took longer than 10 minutes. ${START_AGAIN}` },
  /** The code host said no: `reason` in our words (declined access, or the code host's own error). */
  sign_in_denied: {
    kind: 'forbidden',
    words: (facts: { reason: string }) => `${facts.reason} ${START_AGAIN}`,
  },
  invalid_request: { kind: 'invalid', words: `The sign-in response has no code. ${START_AGAIN}` },
  code_host_unavailable: {
    kind: 'upstream_failed',
    words: `The code host did not answer; try again shortly. ${START_AGAIN}`,
  },
  code_exchange_failed: {
    kind: 'invalid',
    words: (facts: { failure: string }) =>
      `The code host refused the sign-in (${facts.failure}). ${START_AGAIN}`,
  },
  email_unverified: {
    kind: 'invalid',
    words:
      'Your code-host account has no verified primary email address: verify it there, then sign in again.',
  },
});
