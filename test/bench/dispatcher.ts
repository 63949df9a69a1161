import { POLL_IDLE_SECONDS, POLL_SOON_SECONDS } from '../../functions/core/dispatcher.ts';
import type { RunningControlPlane } from '../../lib/local/server.ts';
import { DAYS_PER_MONTH, PRICES } from './cost-model.ts';

const json = (plane: RunningControlPlane, method: string, path: string, body?: unknown, token?: string) =>
  fetch(`${plane.url}${path}`, {
    method,
    headers: {
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0;

/** A paying tenant with one Stack and its Dispatcher credential, through the public API. */
const stackWithCredential = async (plane: RunningControlPlane): Promise<string> => {
  const login = `bench-dsp-${Date.now()}`;
  const signIn = (await (await json(plane, 'POST', '/_local/sign-in', { login })).json()) as {
    sessionToken: string;
  };
  const token = signIn.sessionToken;
  await json(plane, 'POST', '/v1/tenant/slug', { slug: login }, token);
  const answer = await json(plane, 'POST', '/v1/billing/checkout', { plan: 'standard' }, token);
  if (answer.status !== 200) throw new Error(`checkout answered ${answer.status}: ${await answer.text()}`);
  const checkout = (await answer.json()) as { url: string };
  const sessionId = new URL(checkout.url).pathname.split('/').at(-1) ?? '';
  await json(plane, 'POST', `/_local/processor/checkout/${sessionId}/pay`, { card: '4242 4242 4242 4242' });
  await plane.sweeper.runNow();
  const issued = await json(plane, 'POST', '/v1/stacks/primary/dispatcher-credential', undefined, token);
  if (issued.status !== 201) throw new Error(`no credential: ${issued.status} ${await issued.text()}`);
  return ((await issued.json()) as { credential: string }).credential;
};

/**
 * GET /v1/dispatcher/desired-state at a steady rate (one request every `intervalMs`), 200s and 304s
 * apart; then what a Stack costs a month at the documented polling cadence.
 */
export const printDispatcherFigures = async (plane: RunningControlPlane, requests = 300, intervalMs = 5) => {
  const credential = await stackWithCredential(plane);
  const measure = async (etag: string | undefined) => {
    const times: number[] = [];
    for (let i = 0; i < requests; i++) {
      const started = performance.now();
      const answer = await json(plane, 'GET', '/v1/dispatcher/desired-state', undefined, credential).then(
        async (r) => r,
      );
      await answer.arrayBuffer();
      times.push(performance.now() - started);
      if (etag === undefined && answer.status !== 200)
        throw new Error(`desired state answered ${answer.status}`);
      await new Promise((resolve) => setTimeout(resolve, intervalMs));
    }
    return times.sort((a, b) => a - b);
  };
  const full = await measure(undefined);
  const etag =
    (await json(plane, 'GET', '/v1/dispatcher/desired-state', undefined, credential)).headers.get('etag') ??
    '';
  const times304: number[] = [];
  for (let i = 0; i < requests; i++) {
    const started = performance.now();
    const answer = await fetch(`${plane.url}/v1/dispatcher/desired-state`, {
      headers: { authorization: `Bearer ${credential}`, 'if-none-match': etag },
    });
    await answer.arrayBuffer();
    if (answer.status !== 304) throw new Error(`expected 304, got ${answer.status}`);
    times304.push(performance.now() - started);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
  times304.sort((a, b) => a - b);
  console.log(
    `\nDispatcher desired state (local, one request every ${intervalMs} ms, ${requests} each): 200 p50 ${percentile(full, 0.5).toFixed(1)} ms, p99 ${percentile(full, 0.99).toFixed(1)} ms; 304 p50 ${percentile(times304, 0.5).toFixed(1)} ms, p99 ${percentile(times304, 0.99).toFixed(1)} ms`,
  );
  // Each poll is one API request, two Lambda invocations (authorizer + handler) and two strongly
  // consistent item reads (the credential, the Stack): 1 read unit each for items under 4 KB.
  const secondsPerMonth = DAYS_PER_MONTH * 86_400;
  const pollsPerMonth = secondsPerMonth / POLL_IDLE_SECONDS;
  const reads = pollsPerMonth * 2;
  const perStack =
    (pollsPerMonth * PRICES.httpApiPerMillionRequests +
      pollsPerMonth * 2 * PRICES.lambdaPerMillionRequests +
      reads * PRICES.dynamoPerMillionReadUnits) /
    1_000_000;
  console.log(
    `Per Stack per month at the idle cadence (a poll every ${POLL_IDLE_SECONDS} s; ${POLL_SOON_SECONDS} s only while an operation runs): ${pollsPerMonth.toLocaleString('en')} API requests, ${reads.toLocaleString('en')} DynamoDB reads; per 1,000 Stacks $${(perStack * 1000).toFixed(2)} a month (API Gateway, Lambda requests, DynamoDB reads at ${PRICES.region} list prices of ${PRICES.asOf}; Lambda duration excluded)`,
  );
};
