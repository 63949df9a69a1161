import type { LocalRequest, LocalResponse } from '../../lib/local/http-adapter.ts';
import type { RunningControlPlane } from '../../lib/local/server.ts';

/** A JSON POST to the running control plane, as a tenant's app sends it. */
export const post = (plane: RunningControlPlane, path: string, body: unknown, token?: string) =>
  fetch(`${plane.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  });

/**
 * A new tenant `login` that signed in, locked its slug and paid a Standard checkout on the
 * emulator's page (the sweep has not necessarily seen it yet); its session token and id.
 */
export const checkoutPaid = async (
  plane: RunningControlPlane,
  login: string,
): Promise<{ sessionToken: string; tenantId: string }> => {
  const { sessionToken, tenantId } = (await (await post(plane, '/_local/sign-in', { login })).json()) as {
    sessionToken: string;
    tenantId: string;
  };
  await post(plane, '/v1/tenant/slug', { slug: login }, sessionToken);
  const answer = await post(plane, '/v1/billing/checkout', { plan: 'standard' }, sessionToken);
  if (answer.status !== 200)
    throw new Error(
      `checkout answered ${answer.status}: ${await answer.text()}; last processor calls: ${JSON.stringify(plane.processor.calls.slice(-3))}`,
    );
  const { url } = (await answer.json()) as { url: string };
  const paid = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: 'card_number=4242424242424242&action=pay',
    redirect: 'manual',
  });
  if (paid.status !== 303) throw new Error(`payment failed: ${paid.status}`);
  return { sessionToken, tenantId };
};

/** As `checkoutPaid`: the session token only. */
export const paidCheckout = async (plane: RunningControlPlane, login: string): Promise<string> =>
  (await checkoutPaid(plane, login)).sessionToken;

/** What a bench sees of each request through the local gateway, with its time (ms). */
export interface Dispatched {
  request: LocalRequest;
  response: LocalResponse;
  ms: number;
  pathname: string;
  method: string;
}

/** Wraps the local gateway: `seen` is told of every request once it is answered. */
export const onDispatch = (plane: RunningControlPlane, seen: (dispatched: Dispatched) => void): void => {
  const dispatch = plane.gateway.dispatch.bind(plane.gateway);
  plane.gateway.dispatch = async (request: LocalRequest) => {
    const started = performance.now();
    const response = await dispatch(request);
    seen({
      request,
      response,
      ms: performance.now() - started,
      pathname: new URL(request.url, 'http://localhost').pathname,
      method: request.method.toUpperCase(),
    });
    return response;
  };
};
