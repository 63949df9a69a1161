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
 * emulator's page (the sweep has not necessarily seen it yet); its session token.
 */
export const paidCheckout = async (plane: RunningControlPlane, login: string): Promise<string> => {
  const { sessionToken } = (await (await post(plane, '/_local/sign-in', { login })).json()) as {
    sessionToken: string;
  };
  await post(plane, '/v1/tenant/slug', { slug: login }, sessionToken);
  const { url } = (await (
    await post(plane, '/v1/billing/checkout', { plan: 'standard' }, sessionToken)
  ).json()) as { url: string };
  const paid = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: 'card_number=4242424242424242&action=pay',
    redirect: 'manual',
  });
  if (paid.status !== 303) throw new Error(`payment failed: ${paid.status}`);
  return sessionToken;
};
