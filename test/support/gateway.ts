import { installClock } from '../../functions/ports/clock.ts';
import { AdjustableClock } from '../../lib/local/clock.ts';
import { LocalApiGateway, loadAuthorizer, loadRouteHandlers } from '../../lib/local/http-adapter.ts';
import { localRoutes } from '../../lib/local/local-routes.ts';
import { routes } from '../../lib/routes.ts';

export interface CallOptions {
  token?: string;
  cookie?: string;
  body?: unknown;
  /** Sent as is, not JSON-encoded. */
  rawBody?: string | Buffer;
  headers?: Record<string, string>;
}

export interface CallResult {
  status: number;
  headers: Record<string, string>;
  cookies: string[];
  // biome-ignore lint/suspicious/noExplicitAny: tests read response JSON freely
  json: any;
}

/**
 * The local API Gateway with every route of lib/routes.ts and the `/_local/` routes, driven
 * in-process: the same authorizer, events and handlers as Lambda, against DynamoDB Local.
 */
export const testGateway = async () => {
  const clock = new AdjustableClock();
  installClock(clock);
  const gateway = new LocalApiGateway(
    [...localRoutes(clock), ...(await loadRouteHandlers(routes))],
    await loadAuthorizer(),
  );
  const call = async (method: string, url: string, options: CallOptions = {}): Promise<CallResult> => {
    const headers: Record<string, string> = { ...options.headers };
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    if (options.cookie) headers.cookie = options.cookie;
    let body = Buffer.alloc(0);
    if (options.rawBody !== undefined) body = Buffer.from(options.rawBody);
    else if (options.body !== undefined) body = Buffer.from(JSON.stringify(options.body));
    if (body.length && !headers['content-type']) headers['content-type'] = 'application/json';
    const response = await gateway.dispatch({ method, url, headers, body });
    const text = response.body.toString('utf8');
    return {
      status: response.status,
      headers: response.headers,
      cookies: response.cookies,
      json: text ? JSON.parse(text) : undefined,
    };
  };
  const signIn = async (login: string) => {
    const response = await call('POST', '/_local/sign-in', { body: { login } });
    if (response.status !== 200) throw new Error(`sign-in failed: ${JSON.stringify(response.json)}`);
    return response.json as { sessionToken: string; tenantId: string; userId: string; role: string };
  };
  return { gateway, clock, call, signIn };
};

/** A login no other test uses, so tests sharing DynamoDB Local never meet. */
export const uniqueLogin = (prefix = 'user') => `${prefix}-${Math.random().toString(36).slice(2, 10)}`;
