import type {
  APIGatewayRequestAuthorizerEventV2,
  APIGatewaySimpleAuthorizerWithContextResult,
} from 'aws-lambda';
import { isDispatcherCredential } from '#core/dispatcher.ts';
import { isWellFormedToken } from '#core/session-token.ts';
import { dispatcherOfCredential, personOfSession } from '../auth/authorize.ts';
import type { AuthorizerContext, SessionRejection } from './principal.ts';
import { findSessionToken } from './session-token.ts';

type Result = APIGatewaySimpleAuthorizerWithContextResult<AuthorizerContext>;

const anonymous = (rejection: SessionRejection): Result => ({
  isAuthorized: true,
  context: { authenticated: false, rejection },
});

/**
 * The HTTP API's Lambda REQUEST authorizer (simple responses). Resolves a session token (Bearer,
 * the site's `SessionCookie` scheme, or the cookie itself under `npm start`) to tenant, user and
 * role, or a Dispatcher credential to its Stack; anything else is let through unauthenticated with
 * the reason, for the handler to answer 401 in our words.
 *
 * In the cloud API Gateway caches this answer per `Authorization` value for
 * AUTHORIZER_CACHE_SECONDS (30 s, lib/infra/edge-session.ts): a sign-out, an expiry, a changed or
 * removed membership or a retired Dispatcher credential is seen within that time, not at once
 * (docs/decisions.md, "Edge and transport"); a request without `Authorization` never reaches it.
 * `npm start` (lib/local/http-adapter.ts) has no cache and runs it on every request.
 */
export const handler = async (event: APIGatewayRequestAuthorizerEventV2): Promise<Result> => {
  const found = findSessionToken(event.headers ?? {}, event.cookies);
  if (!found) return anonymous('missing_session');
  if (found.via === 'bearer' && isDispatcherCredential(found.token)) {
    const dispatcher = await dispatcherOfCredential(found.token);
    if (!dispatcher) return anonymous('invalid_dispatcher_credential');
    return {
      isAuthorized: true,
      context: { authenticated: true, kind: 'dispatcher', ...dispatcher },
    };
  }
  if (!isWellFormedToken(found.token)) return anonymous('invalid_session');

  const person = await personOfSession(found.token);
  if (typeof person === 'string') return anonymous(person);
  return {
    isAuthorized: true,
    context: {
      authenticated: true,
      ...person,
      via: found.via,
    },
  };
};
