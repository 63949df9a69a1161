import { catalog } from './catalog.ts';

/**
 * The refusals of the HTTP edge (functions/http): authentication, the request's shape, and our own
 * defects. Each code once, with its kind and its words.
 */
export const httpRefusals = catalog({
  /**
   * No session: none was sent, or a Dispatcher credential was sent to a tenant route
   * (`dispatcher: true`).
   */
  missing_session: {
    kind: 'unauthenticated',
    words: (facts: { dispatcher: boolean }) =>
      facts.dispatcher
        ? 'A Dispatcher credential reaches only the /v1/dispatcher routes: sign in as a tenant user for this one.'
        : 'Sign in first: send Authorization: Bearer <sessionToken> or the session cookie.',
  },
  invalid_session: {
    kind: 'unauthenticated',
    words: 'The session token is not valid (revoked or unknown): sign in again.',
  },
  expired_session: { kind: 'unauthenticated', words: 'The session has expired: sign in again.' },
  invalid_dispatcher_credential: {
    kind: 'unauthenticated',
    words:
      "The Dispatcher credential is not valid (unknown, or rotated out more than an hour ago): use the Stack's current credential.",
  },
  /** A /v1/dispatcher route reached without a Dispatcher credential. */
  dispatcher_credential_required: {
    kind: 'unauthenticated',
    words:
      "Send the Stack's Dispatcher credential as Authorization: Bearer scd_…; a tenant session does not reach this route.",
  },
  /** An unsafe request authenticated by the cookie, from another origin than the tenant app. */
  origin_mismatch: {
    kind: 'forbidden',
    words:
      'This request is authenticated by the session cookie but does not come from the tenant app (Origin header); send it from the tenant app or with Authorization: Bearer.',
  },
  /** The route (or the use case) needs the tenant administrator's role. */
  admin_required: { kind: 'forbidden', words: 'Only a tenant administrator can do this.' },
  body_too_large: {
    kind: 'invalid',
    words: (facts: { maxBytes: number }) => `The request body must be at most ${facts.maxBytes} bytes.`,
  },
  invalid_json: { kind: 'invalid', words: 'The request body is not valid JSON.' },
  unsupported_media_type: {
    kind: 'unsupported_media',
    words: (facts: { received: string }) =>
      `The request body must be JSON: send Content-Type: application/json (received ${facts.received}).`,
  },
  /**
   * The body as a whole is wrong: not a JSON object, or (`what`) what its schema says of it. Also
   * the local stand-ins' bodies.
   */
  invalid_body: {
    kind: 'invalid',
    words: (facts: { what?: string }) => facts.what ?? 'The request body must be a JSON object.',
    shown: 'The request body must be a JSON object (or: what its schema says of it).',
  },
  /** A field the route does not take (of its body, or `in: 'query'` a query parameter). */
  unknown_field: {
    kind: 'invalid',
    words: (facts: { field: string; in?: 'query' }) =>
      `Unknown ${facts.in === 'query' ? 'query parameter' : 'field'} "${facts.field}": remove it.`,
  },
  /**
   * A field (of the body, the query or a header) is missing or wrong: `what` says which and what to
   * send instead, in a sentence (`Field "plan" is required.`, `limit must be a whole number from 1 to 25.`).
   */
  invalid_field: {
    kind: 'invalid',
    words: (facts: { what: string }) => facts.what,
    shown: 'Field "…" is required. / Field "…" is invalid: expected …, received ….',
  },
  invalid_idempotency_key: {
    kind: 'invalid',
    field: 'Idempotency-Key',
    words: 'Idempotency-Key must be 1 to 255 visible ASCII characters.',
  },
  /** Our defect: nothing of the request is trusted. */
  internal_error: { kind: 'internal', words: 'Something went wrong on our side; retry later.' },
});
