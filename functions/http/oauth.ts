import { createHash, randomBytes } from 'node:crypto';
import { config } from '#ports/config.ts';
import type { ApiEvent } from './handler.ts';

/** Binds a started sign-in to the browser that started it (defends against login CSRF). */
export const OAUTH_STATE_COOKIE = 'scp_oauth_state';

export const randomUrlToken = (): string => randomBytes(32).toString('base64url');

/** PKCE S256: the challenge is the base64url SHA-256 of the verifier. */
export const pkceChallenge = (verifier: string): string =>
  createHash('sha256').update(verifier).digest('base64url');

export const oauthStateCookie = (state: string, maxAgeSeconds: number): string =>
  `${OAUTH_STATE_COOKIE}=${state}; Path=/v1/auth; Max-Age=${maxAgeSeconds}; HttpOnly; Secure; SameSite=Lax`;

export const clearedOAuthStateCookie = (): string =>
  `${OAUTH_STATE_COOKIE}=; Path=/v1/auth; Max-Age=0; HttpOnly; Secure; SameSite=Lax`;

/** The callback address registered with the code host: configured, or this API's own domain. */
export const callbackUrl = (event: ApiEvent): string =>
  `${config.publicApiUrl() ?? `https://${event.requestContext.domainName}`}/v1/auth/callback`;

/** A client that asks for JSON gets JSON; a browser gets redirects. */
export const wantsJson = (headers: Record<string, string | undefined>): boolean =>
  /\bapplication\/json\b/i.test(headers.accept ?? '');
