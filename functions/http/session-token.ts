import { readCookie } from './cookies.ts';

/** The session cookie (HttpOnly, Secure, SameSite=Lax). */
export const SESSION_COOKIE = 'scp_session';

export const sessionCookie = (token: string, expiresAt: Date): string =>
  `${SESSION_COOKIE}=${token}; Path=/; Expires=${expiresAt.toUTCString()}; HttpOnly; Secure; SameSite=Lax`;

export const clearedSessionCookie = (): string =>
  `${SESSION_COOKIE}=; Path=/; Expires=Thu, 01 Jan 1970 00:00:00 GMT; HttpOnly; Secure; SameSite=Lax`;

export type TokenSource = 'bearer' | 'cookie';

/**
 * The Authorization scheme under which the console's site (its CloudFront viewer-request function,
 * lib/infra/edge-session.ts) passes on the session cookie, so that the API's authorizer has one
 * identity source for both clients (docs/decisions.md, "Edge and transport"). A token under it is
 * the cookie's: cookie rules apply (an unsafe request must come from the tenant app's origin).
 */
export const EDGE_COOKIE_SCHEME = 'SessionCookie';

/**
 * The session token of a request: the `Authorization` header wins over the cookie; `Bearer` is a
 * bearer token, `SessionCookie` the cookie as the site passed it on. `cookies` is API Gateway v2's
 * list of `name=value` strings.
 */
export const findSessionToken = (
  headers: Record<string, string | undefined>,
  cookies: readonly string[] | undefined,
): { token: string; via: TokenSource } | undefined => {
  const authorization = headers.authorization;
  if (authorization !== undefined) {
    const match = /^(Bearer|SessionCookie)\s+(\S+)\s*$/i.exec(authorization);
    if (!match?.[2]) return undefined;
    return {
      token: match[2],
      via: match[1]?.toLowerCase() === EDGE_COOKIE_SCHEME.toLowerCase() ? 'cookie' : 'bearer',
    };
  }
  const fromCookie = readCookie(cookies, SESSION_COOKIE);
  return fromCookie === undefined ? undefined : { token: fromCookie, via: 'cookie' };
};
