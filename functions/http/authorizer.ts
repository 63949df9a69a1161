import type {
  APIGatewayRequestAuthorizerEventV2,
  APIGatewaySimpleAuthorizerWithContextResult,
} from 'aws-lambda';
import { isDispatcherCredential } from '#core/dispatcher.ts';
import { hashSessionToken, isWellFormedToken } from '#core/session-token.ts';
import { isSessionLive } from '#core/sessions.ts';
import { clock } from '#ports/clock.ts';
import { logger } from '#ports/logger.ts';
import { findDispatcherCredential } from '#store/dispatcher.ts';
import { getSession } from '#store/sessions.ts';
import { getMembership } from '#store/users.ts';
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
    const credential = await findDispatcherCredential(hashSessionToken(found.token));
    if (
      !credential ||
      (credential.retiresAt !== undefined && Date.parse(credential.retiresAt) <= clock().now().getTime())
    )
      return anonymous('invalid_dispatcher_credential');
    return {
      isAuthorized: true,
      context: {
        authenticated: true,
        kind: 'dispatcher',
        tenantId: credential.tenantId,
        stackId: credential.stackId,
      },
    };
  }
  if (!isWellFormedToken(found.token)) return anonymous('invalid_session');

  const session = await getSession(hashSessionToken(found.token));
  if (!session || session.revokedAt !== undefined) return anonymous('invalid_session');
  if (!isSessionLive(session, clock().now())) return anonymous('expired_session');

  const membership = await getMembership(session.tenantId, session.userId);
  if (!membership) {
    logger.warn('session of a user without membership', { userId: session.userId });
    return anonymous('invalid_session');
  }
  // The person started a new account since this session began (in another browser): a sign-in
  // opens the new one; the old account's billing is read from there (?account=<slug>).
  if (membership.formerAt !== undefined) return anonymous('invalid_session');
  return {
    isAuthorized: true,
    context: {
      authenticated: true,
      tenantId: session.tenantId,
      userId: session.userId,
      role: membership.role,
      via: found.via,
    },
  };
};
