import { codeHostEnvironment, type LocalCodeHost, startCodeHost } from '../../lib/local/code-host.ts';
import type { CallResult, testGateway } from './gateway.ts';

type Api = Awaited<ReturnType<typeof testGateway>>;

/** Starts a fake code host for this test file and points the sign-in handlers at it. */
export const startFakeCodeHost = async (): Promise<LocalCodeHost> => {
  const codeHost = await startCodeHost();
  Object.assign(process.env, codeHostEnvironment(codeHost), { PUBLIC_API_URL: 'https://api.test' });
  return codeHost;
};

const cookieValue = (setCookies: string[], name: string): string | undefined =>
  setCookies
    .find((cookie) => cookie.startsWith(`${name}=`))
    ?.split(';')[0]
    ?.slice(name.length + 1);

export interface FlowOptions {
  decision?: 'authorize' | 'deny';
  accept?: string;
  /** Changes the callback's query before it is sent (e.g. a tampered code). */
  tamper?: (query: URLSearchParams) => void;
  /** Drops the state cookie, as when the callback lands in another browser. */
  withoutStateCookie?: boolean;
  /** Runs between the code host's redirect and the callback (e.g. to let time pass). */
  beforeCallback?: () => Promise<void> | void;
}

/**
 * Walks the browser flow: our sign-in redirect, the code host's authorize form, and the
 * callback with the state cookie. Returns the callback's response.
 */
export const signInThroughCodeHost = async (
  api: Api,
  login: string,
  options: FlowOptions = {},
): Promise<{ start: CallResult; callback: CallResult; callbackUrl: URL }> => {
  const start = await api.call('GET', '/v1/auth/sign-in');
  if (start.status !== 302) throw new Error(`sign-in did not redirect: ${JSON.stringify(start.json)}`);
  const authorize = new URL(start.headers.location ?? '');
  const stateCookie = cookieValue(start.cookies, 'scp_oauth_state');

  const form = new URLSearchParams(authorize.searchParams);
  form.set('login', login);
  form.set('decision', options.decision ?? 'authorize');
  const decided = await fetch(`${authorize.origin}${authorize.pathname}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: form.toString(),
    redirect: 'manual',
  });
  if (decided.status !== 302)
    throw new Error(`code host answered ${decided.status}: ${await decided.text()}`);
  const callbackUrl = new URL(decided.headers.get('location') ?? '');
  options.tamper?.(callbackUrl.searchParams);
  await options.beforeCallback?.();
  const callback = await api.call('GET', `${callbackUrl.pathname}${callbackUrl.search}`, {
    headers: {
      accept: options.accept ?? 'application/json',
      ...(options.withoutStateCookie || !stateCookie ? {} : { cookie: `scp_oauth_state=${stateCookie}` }),
    },
  });
  return { start, callback, callbackUrl };
};

export const sessionFromCookies = (setCookies: string[]): string | undefined =>
  cookieValue(setCookies, 'scp_session');
