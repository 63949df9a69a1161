/**
 * The document's shared parts: its introduction, security schemes, the answers' component schemas
 * (converted from their valibot schemas by ./answers.ts) and the words of the refusals every route of a kind shares.
 */
import { COMPONENT_SCHEMAS } from './answers.ts';
import type { JsonSchema } from './types.ts';

/** The error shape of every refusal, from its valibot schema (functions/http/errors.ts). */
export const ERROR_SCHEMA: JsonSchema = COMPONENT_SCHEMAS.Error as JsonSchema;

export const INFO = {
  license: {
    name: 'Proprietary: for tenants of the Stack Control Plane',
    identifier: 'LicenseRef-Proprietary',
  },
  title: 'Stack Control Plane API',
  version: '1.0.0',
  description:
    'Tenant-facing API of the Stack Control Plane. Every error is `{ "error": { "code", "message", "field"?, "apiHint"?, "requestId" } }`, with any extra fields the specification names at top level. Every response carries `x-request-id`. Request bodies are JSON objects of at most 16384 bytes (`x-max-body-bytes` at the top of this document), unless an operation\'s request body names its own limit (its `x-max-body-bytes`); a larger body is 400 `body_too_large`. Unknown fields are refused. Any operation may answer 503 `temporarily_busy` (with `retryAfterSeconds` and the `Retry-After` header) when the request met another write to the same records or a throttled table: nothing of it was saved; send it again after that many seconds (with the same Idempotency-Key, if one was sent).',
};

export const SERVERS = [
  {
    // Relative: the site the reference page (/docs) and this document are served from, which
    // reaches the API (the console's site in the cloud sends /v1/* and /credentials* on to it;
    // npm start answers at http://localhost:3000).
    url: '/',
    description: 'This site: the console site of a deployed stage, or npm start (http://localhost:3000)',
  },
];

export const SECURITY_SCHEMES = {
  bearer: {
    type: 'http',
    scheme: 'bearer',
    description: 'The `sessionToken` from sign-in.',
  },
  sessionCookie: {
    type: 'apiKey',
    in: 'cookie',
    name: 'scp_session',
  },
  dispatcherCredential: {
    type: 'http',
    scheme: 'bearer',
    description:
      "A Stack's Dispatcher credential (scd_…), issued by POST /v1/stacks/{stackId}/dispatcher-credential",
  },
  sigv4: {
    type: 'apiKey',
    in: 'header',
    name: 'Authorization',
    description:
      "An operator's AWS Signature Version 4 (API Gateway's IAM authorizer; the principal needs execute-api:Invoke on the route). Operators only; never a tenant.",
  },
};

export const SHARED_REFUSAL_WORDS = {
  InternalError:
    '`internal_error`: a fault of ours (a defect, or a setting the platform team has not made yet, such as a placeholder secret): nothing is to fix in the request; it is logged and alarmed, and the same request may be sent again later.',
  TemporarilyBusy:
    'The request met another write to the same records or a throttled table: nothing of it was saved; send it again after `retryAfterSeconds` (also the `Retry-After` header), with the same Idempotency-Key if one was sent.',
  Unauthenticated:
    'No session, or a revoked, unknown or expired one (`missing_session`, `invalid_session`, `expired_session`).',
  BadRequest:
    'Malformed JSON, a body over the limit, an unknown field or a field of the wrong type (`invalid_json`, `body_too_large`, `unknown_field`, `invalid_field`, `invalid_body`).',
  Forbidden:
    '`admin_required` (a member asked for an administrator action) or `origin_mismatch` (a cookie-authenticated write from another origin)',
  UnsupportedMediaType:
    '`unsupported_media_type`: a request body sent with a Content-Type other than `application/json` (parameters such as `; charset=utf-8` are fine). A request without a body needs none. Nothing was done.',
  Throttled:
    'API Gateway\'s own throttle (the stage\'s rate, or a Dispatcher route\'s, sized for the fleet), answered before any of our code runs (`{"message":"Too Many Requests"}`, not the error shape): nothing was done; send the request again after a short, growing pause (the typed client does).',
  PayloadTooLarge:
    'A body over API Gateway\'s 10 MB payload limit, answered by API Gateway itself (`{"message":"Request Entity Too Large"}`, not the error shape); bodies over the handlers\' 16 KB limit are 400 `body_too_large`.',
};

/** The named answers' schemas, converted from valibot (functions/http/answers/schemas.ts). */
export const ANSWER_SCHEMAS: Record<string, JsonSchema> = Object.fromEntries(
  Object.entries(COMPONENT_SCHEMAS).filter(([name]) => name !== 'Error'),
);
