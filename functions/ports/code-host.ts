import { config } from './config.ts';
import { secretValue } from './secrets.ts';

/**
 * The code host's OAuth 2.0 authorization-code flow with PKCE, as GitHub speaks it: the authorize
 * page, the token exchange, `GET /user` and the verified primary address from `GET /user/emails`.
 */

export interface CodeHostAccount {
  /** The code host's stable account id (GitHub's numeric `id`), as a string. */
  subject: string;
  login: string;
  /** The verified primary address, if the account has one. */
  email: string | undefined;
}

export class CodeHostError extends Error {
  readonly kind: 'exchange_failed' | 'unavailable';
  constructor(kind: 'exchange_failed' | 'unavailable', message: string) {
    super(message);
    this.name = 'CodeHostError';
    this.kind = kind;
  }
}

const TIMEOUT_MS = 5000;
const request = async (url: string, init: RequestInit): Promise<Response> => {
  try {
    return await fetch(url, { ...init, signal: AbortSignal.timeout(TIMEOUT_MS) });
  } catch (error) {
    throw new CodeHostError('unavailable', `the code host did not answer: ${(error as Error).message}`);
  }
};

export const authorizeUrl = (params: {
  state: string;
  codeChallenge: string;
  redirectUri: string;
}): string => {
  const { authorizeUrl: base, clientId } = config.codeHost();
  const url = new URL(base);
  url.search = new URLSearchParams({
    client_id: clientId,
    redirect_uri: params.redirectUri,
    scope: 'read:user user:email',
    state: params.state,
    code_challenge: params.codeChallenge,
    code_challenge_method: 'S256',
    allow_signup: 'true',
  }).toString();
  return url.toString();
};

/** Exchanges the authorization code (with the PKCE verifier) for an access token. */
export const exchangeCode = async (params: {
  code: string;
  codeVerifier: string;
  redirectUri: string;
}): Promise<string> => {
  const { tokenUrl, clientId } = config.codeHost();
  const response = await request(tokenUrl, {
    method: 'POST',
    headers: { accept: 'application/json', 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      client_id: clientId,
      client_secret: await secretValue('CODE_HOST_CLIENT_SECRET'),
      code: params.code,
      redirect_uri: params.redirectUri,
      code_verifier: params.codeVerifier,
    }).toString(),
  });
  if (response.status >= 500)
    throw new CodeHostError('unavailable', `token exchange answered ${response.status}`);
  // GitHub answers a refused exchange with 200 and an `error` field.
  const body = (await response.json().catch(() => ({}))) as {
    access_token?: string;
    error?: string;
    error_description?: string;
  };
  if (!response.ok || !body.access_token) {
    throw new CodeHostError(
      'exchange_failed',
      body.error_description ?? body.error ?? `token exchange answered ${response.status}`,
    );
  }
  return body.access_token;
};

const getJson = async <T>(path: string, accessToken: string): Promise<T> => {
  const response = await request(`${config.codeHost().apiUrl}${path}`, {
    headers: {
      accept: 'application/vnd.github+json',
      authorization: `Bearer ${accessToken}`,
      'user-agent': 'stack-control-plane',
    },
  });
  if (!response.ok) {
    throw new CodeHostError(
      response.status >= 500 ? 'unavailable' : 'exchange_failed',
      `GET ${path} answered ${response.status}`,
    );
  }
  return (await response.json()) as T;
};

/** The account behind an access token, with its verified primary address. */
export const fetchAccount = async (accessToken: string): Promise<CodeHostAccount> => {
  const [user, emails] = await Promise.all([
    getJson<{ id: number; login: string }>('/user', accessToken),
    getJson<{ email: string; primary: boolean; verified: boolean }[]>('/user/emails', accessToken),
  ]);
  if (typeof user.id !== 'number' || typeof user.login !== 'string') {
    throw new CodeHostError('exchange_failed', 'the code host returned no account');
  }
  const primary = emails.find((entry) => entry.primary && entry.verified);
  return { subject: String(user.id), login: user.login, email: primary?.email };
};
