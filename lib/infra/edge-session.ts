/**
 * The console site's viewer-request function on the API's behaviours (CloudFront Functions,
 * cloudfront-js-2.0): a request that carries no `Authorization` header but the session cookie gets
 * `Authorization: SessionCookie <token>`. The API's authorizer then has one identity source for
 * both clients, `Authorization` (API Gateway requires every listed identity source, and caches
 * answers by them): a Dispatcher's or script's bearer token, or the browser's cookie passed on
 * under its own scheme, so that cookie rules (the same-origin check of unsafe requests) still
 * apply. A request with neither is refused by API Gateway (401) without running the authorizer.
 * docs/decisions.md, "Edge and transport". No CDK import: the unit test runs the code as is.
 */
import { EDGE_COOKIE_SCHEME, SESSION_COOKIE } from '../../functions/http/session-token.ts';

/** The identity source of the session authorizer: the one header both clients send. */
export const AUTHORIZER_IDENTITY_SOURCE = '$request.header.Authorization';

/**
 * How long API Gateway keeps the authorizer's answer for one `Authorization` value: a signed-out
 * or expired session, or a retired Dispatcher credential, may still be let through for this long
 * by a token that was already used within it (docs/decisions.md, docs/runbook.md).
 */
export const AUTHORIZER_CACHE_SECONDS = 30;

export const EDGE_SESSION_FUNCTION_CODE = `function handler(event) {
  var request = event.request;
  if (!request.headers.authorization) {
    var cookie = request.cookies[${JSON.stringify(SESSION_COOKIE)}];
    if (cookie && cookie.value) {
      request.headers.authorization = { value: ${JSON.stringify(`${EDGE_COOKIE_SCHEME} `)} + cookie.value };
    }
  }
  return request;
}
`;
