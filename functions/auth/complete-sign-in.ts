import { Refusal } from '#core/refusal.ts';
import { tryAgain } from '#core/refusals/common.ts';
import { hashSessionToken, newSessionToken } from '#core/session-token.ts';
import { isOAuthStateFresh } from '#core/sign-in.ts';
import { CodeHostError, exchangeCode, fetchAccount } from '#ports/code-host.ts';
import { tableFaultOf } from '#store/client.ts';
import { consumeOAuthState } from '#store/oauth-states.ts';
import { createSession } from '#store/sessions.ts';
import { signInIdentity } from '#store/users.ts';

const START_AGAIN = 'Start again at /v1/auth/sign-in.';

/**
 * THE sign-in completion use case: checks the one-time `state` (and that this browser started
 * it), exchanges the code, creates the user and tenant on first sign-in, and opens a session.
 * Every refusal happens before anything is created.
 */
export const completeSignIn = async (params: {
  state: string | undefined;
  /** The `state` remembered in this browser's cookie. */
  browserState: string | undefined;
  code: string | undefined;
  error: string | undefined;
  now: Date;
}): Promise<{ sessionToken: string; expiresAt: string }> => {
  const { state, now } = params;
  if (!state)
    throw new Refusal('invalid', 'invalid_state', `The sign-in response has no state. ${START_AGAIN}`);
  // Consumed first: a state is good for one attempt, whatever its outcome.
  const pending = await consumeOAuthState(hashSessionToken(state));
  if (!pending)
    throw new Refusal(
      'invalid',
      'invalid_state',
      `This sign-in was already completed or is unknown. ${START_AGAIN}`,
    );
  if (!isOAuthStateFresh(pending, now))
    throw new Refusal('invalid', 'state_expired', `This sign-in took longer than 10 minutes. ${START_AGAIN}`);
  if (params.browserState !== state)
    throw new Refusal(
      'invalid',
      'invalid_state',
      `This sign-in was started in another browser. ${START_AGAIN}`,
    );
  if (params.error) {
    const reason =
      params.error === 'access_denied'
        ? 'You declined access on the code host.'
        : `The code host said: ${params.error}.`;
    throw new Refusal('forbidden', 'sign_in_denied', `${reason} ${START_AGAIN}`);
  }
  if (!params.code)
    throw new Refusal('invalid', 'invalid_request', `The sign-in response has no code. ${START_AGAIN}`);
  const code = params.code;

  let account: Awaited<ReturnType<typeof fetchAccount>>;
  try {
    const accessToken = await exchangeCode({
      code,
      codeVerifier: pending.codeVerifier,
      redirectUri: pending.redirectUri,
    });
    account = await fetchAccount(accessToken);
  } catch (error) {
    if (!(error instanceof CodeHostError)) throw error;
    if (error.kind === 'unavailable')
      throw new Refusal(
        'upstream_failed',
        'code_host_unavailable',
        `The code host did not answer; try again shortly. ${START_AGAIN}`,
      );
    throw new Refusal(
      'invalid',
      'code_exchange_failed',
      `The code host refused the sign-in (${error.message}). ${START_AGAIN}`,
    );
  }
  if (!account.email) {
    throw new Refusal(
      'invalid',
      'email_unverified',
      'Your code-host account has no verified primary email address: verify it there, then sign in again.',
    );
  }
  const identity = {
    provider: 'github',
    subject: account.subject,
    login: account.login,
    email: account.email,
  };
  try {
    const user = await signInIdentity(identity, now);
    const sessionToken = newSessionToken();
    const session = await createSession(hashSessionToken(sessionToken), user, now);
    return { sessionToken, expiresAt: session.expiresAt };
  } catch (error) {
    // The state is spent: a retry is a new sign-in (which finds the user, if it was created).
    const fault = tableFaultOf(error);
    if (fault) throw tryAgain(fault, { retry: START_AGAIN, cause: error });
    throw error;
  }
};
