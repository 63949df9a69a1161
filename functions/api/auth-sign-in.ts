import { OAUTH_STATE_LIFETIME_SECONDS } from '#core/sign-in.ts';
import { httpHandler } from '#http/handler.ts';
import { callbackUrl, oauthStateCookie, pkceChallenge, randomUrlToken } from '#http/oauth.ts';
import { authorizeUrl } from '#ports/code-host.ts';
import { startSignIn } from '../auth/sessions.ts';

/** GET /v1/auth/sign-in: starts the code-host sign-in (a one-time `state` and a PKCE verifier). */
export const handler = httpHandler({ auth: 'none' }, async ({ event, now }) => {
  const state = randomUrlToken();
  const codeVerifier = randomUrlToken();
  const redirectUri = callbackUrl(event);
  await startSignIn({ state, codeVerifier, redirectUri, now });
  return {
    status: 302,
    headers: { location: authorizeUrl({ state, codeChallenge: pkceChallenge(codeVerifier), redirectUri }) },
    cookies: [oauthStateCookie(state, OAUTH_STATE_LIFETIME_SECONDS)],
  };
});
