import { readCookie } from './cookies.ts';

/** The session cookie (HttpOnly, Secure, SameSite=Lax). */
export const SESSION_COOKIE = 'scp_session';

export const sessionCookie = (token: string, expiresAt: Date): string =>
  `${SESSION_COOKIE}=${token}; Path=/; Expires=${expiresAt.toUTCString()}; HttpOnly; Secure; SameSite=Lax`;

export const clearedSessionCookie = (): string =>
  `${SESSION_COOKIE}=; Path=/; Expires=Thu, 01 Jan 1970 00:00:00 GMT; HttpOnly; Secure; SameSite=Lax`;

export type TokenSource = 'bearer' | 'cookie';

/**
 * The session token of a request: the `Authorization: Bearer` header wins over the cookie.
 * `cookies` is API Gateway v2's list of `name=value` strings.
 */
export const findSessionToken = (
  headers: Record<string, string | undefined>,
  cookies: readonly string[] | undefined,
): { token: string; via: TokenSource } | undefined => {
  const authorization = headers.authorization;
  if (authorization !== undefined) {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
    return match?.[1] ? { token: match[1], via: 'bearer' } : undefined;
  }
  const fromCookie = readCookie(cookies, SESSION_COOKIE);
  return fromCookie === undefined ? undefined : { token: fromCookie, via: 'cookie' };
};
