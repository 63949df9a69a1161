import type { Role } from '#core/sessions.ts';
import type { TokenSource } from './session-token.ts';

/** Why a request carries no usable session; each is answered 401 with this code. */
export type SessionRejection =
  | 'missing_session'
  | 'invalid_session'
  | 'expired_session'
  | 'invalid_dispatcher_credential';

/**
 * What the authorizer hands to handlers (API Gateway `requestContext.authorizer.lambda`).
 * The authorizer lets anonymous requests through with their rejection so that the handler can
 * answer 401 in our error shape; HTTP APIs cannot reshape an authorizer's own 401 body.
 */
export type AuthorizerContext =
  | { authenticated: true; kind?: 'session'; tenantId: string; userId: string; role: Role; via: TokenSource }
  | { authenticated: true; kind: 'dispatcher'; tenantId: string; stackId: string }
  | { authenticated: false; rejection: SessionRejection };

/** A Stack's Dispatcher, authenticated by that Stack's credential: it reaches only its own Stack. */
export interface DispatcherPrincipal {
  tenantId: string;
  stackId: string;
}

export interface Principal {
  tenantId: string;
  userId: string;
  role: Role;
  via: TokenSource;
}
