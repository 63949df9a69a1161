import { execFileSync } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { payOnCheckout, TEST_CARDS } from '../support/hosted-pages.ts';
import { eventually, localClient } from '../support/local-cloud.ts';
import {
  javaProcessesOf,
  json,
  NODE,
  newDataDirectory,
  processesNaming,
  REPO,
  type Running,
  startLocalServer,
  stopLocalServer,
} from '../support/local-server.ts';

/**
 * `npm start` as a user runs it: this file has a server of its own (not the e2e run's shared one)
 * because it stops it with Ctrl-C, starts it again on the same data folder and with --fresh, and
 * because it runs with the scheduled and nudged sweeps that the shared server leaves to the tests.
 */

const dataDirectory = newDataDirectory();
// At INFO, as `npm start` runs by default: the request lines it writes (and those it does not) are asserted.
const start = (extraArgs: string[] = []) =>
  startLocalServer(dataDirectory, extraArgs, { environment: { POWERTOOLS_LOG_LEVEL: 'INFO' } });
const stop = stopLocalServer;
const javaProcessesOfThisRun = () => javaProcessesOf(dataDirectory);

let current: Running | undefined;
const cloud = localClient(() => current as Running);
afterAll(async () => {
  if (current && current.process.exitCode === null) await stop(current);
});

describe('a server that does not become ready', () => {
  it('is killed with its Java: nothing it started keeps running', async () => {
    const folder = newDataDirectory();
    const giveUp = new AbortController();
    const starting = startLocalServer(folder, ['--fresh'], { signal: giveUp.signal });
    // Given up once its Java runs (as the ready timeout does when the server hangs after that).
    await eventually(
      async () => javaProcessesOf(folder),
      (java) => java.length > 0,
      { timeoutMs: 60_000, what: 'Java started' },
    );
    giveUp.abort();
    await expect(starting).rejects.toThrow(/given up before ready/);
    expect(processesNaming(folder)).toEqual([]);
  }, 90_000);
});

describe('npm start without Java', () => {
  it('says in one line how to install it, and exits non-zero', () => {
    let failure: { status: number; stderr: string } | undefined;
    try {
      execFileSync(NODE, ['lib/local/main.ts', '--port', '0', '--data-dir', dataDirectory], {
        cwd: REPO,
        env: { ...process.env, PATH: '/nonexistent' },
        encoding: 'utf8',
        stdio: 'pipe',
      });
    } catch (error) {
      failure = error as { status: number; stderr: string };
    }
    expect(failure?.status).toBe(1);
    const lines = (failure?.stderr ?? '').trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/Java 17\+ is required.*apt-get install -y openjdk-17-jre-headless/);
  });
});

describe('npm start: the local control plane', () => {
  let sessionToken = '';

  it('serves GET /v1/billing/plans to a session from /_local/sign-in, and 401 without one', async () => {
    current = await start(['--fresh']);
    const signIn = await cloud.signIn('alice');
    expect(signIn).toMatchObject({ sessionToken: expect.any(String), tenantId: expect.any(String) });
    sessionToken = signIn.sessionToken;

    const plans = await cloud.call('GET', '/v1/billing/plans', { token: sessionToken });
    expect(plans.status).toBe(200);
    expect(
      plans.body.plans.map((plan: { value: string; monthlyPrice: { amount: number } }) => [
        plan.value,
        plan.monthlyPrice.amount,
      ]),
    ).toEqual([
      ['standard', 4000],
      ['plus', 5000],
      ['pro', 6000],
    ]);
    // The capacity seed (lib/local/capacity.json) makes every Plan placeable in `eu`.
    expect(plans.body.plans.every((plan: { placeable: boolean }) => plan.placeable)).toBe(true);

    const anonymous = await fetch(`${current.url}/v1/billing/plans`);
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('x-request-id')).toBeTruthy();
    expect((await json(anonymous)).body.error.code).toBe('missing_session');
  }, 90_000);

  it('the session cookie works as well as the Bearer header', async () => {
    const running = current as Running;
    const response = await fetch(`${running.url}/v1/billing/plans`, {
      headers: { cookie: `scp_session=${sessionToken}` },
    });
    expect(response.status).toBe(200);
  });

  it('reads and advances the clock', async () => {
    const before = await cloud.now();
    const advanced = await cloud.advance(3 * 86400);
    expect(Date.parse(advanced.now) - Date.parse(before)).toBeGreaterThanOrEqual(3 * 86400 * 1000);
    const refused = await cloud.call('POST', '/_local/clock/advance', { body: { seconds: -5 } });
    expect(refused.status).toBe(400);
  });

  /** Follows our sign-in through the code-host stand-in's page, as a browser would, up to the callback. */
  const throughCodeHost = async (running: Running, login: string) => {
    const start = await fetch(`${running.url}/v1/auth/sign-in`, { redirect: 'manual' });
    expect(start.status).toBe(302);
    const stateCookie =
      start.headers
        .getSetCookie()
        .find((c) => c.startsWith('scp_oauth_state='))
        ?.split(';')[0] ?? '';
    const authorize = new URL(start.headers.get('location') ?? '');
    const page = await fetch(authorize);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('<form method="post"');
    const form = new URLSearchParams();
    for (const [, name, value] of html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) {
      form.set(name ?? '', (value ?? '').replace(/&amp;/g, '&'));
    }
    form.set('login', login);
    form.set('decision', 'authorize');
    const decided = await fetch(`${authorize.origin}${authorize.pathname}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: form,
      redirect: 'manual',
    });
    expect(decided.status).toBe(302);
    const callback = decided.headers.get('location') ?? '';
    expect(callback.startsWith(`${running.url}/v1/auth/callback?`)).toBe(true);
    return { callback, stateCookie };
  };

  it('browser sign-in: redirects through the code host back to the tenant app with a session cookie', async () => {
    const running = current as Running;
    const { callback, stateCookie } = await throughCodeHost(running, 'bob');
    const landed = await fetch(callback, {
      headers: { cookie: stateCookie, accept: 'text/html' },
      redirect: 'manual',
    });
    expect(landed.status).toBe(302);
    expect(landed.headers.get('location')).toBe(`${running.url}/`);
    const session =
      landed.headers
        .getSetCookie()
        .find((c) => c.startsWith('scp_session='))
        ?.split(';')[0] ?? '';
    expect((await fetch(`${running.url}/`)).status).toBe(200);
    const me = await json(await fetch(`${running.url}/v1/me`, { headers: { cookie: session } }));
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({
      user: { login: 'bob' },
      role: 'administrator',
      billingState: 'provisioning',
      homeRegion: 'eu',
    });
  });

  it('JSON sign-in returns the sessionToken; sign-out makes it useless at once', async () => {
    const running = current as Running;
    const { callback, stateCookie } = await throughCodeHost(running, 'carol');
    const signedIn = await json(
      await fetch(callback, { headers: { cookie: stateCookie, accept: 'application/json' } }),
    );
    expect(signedIn.status).toBe(200);
    const token = signedIn.body.sessionToken as string;
    const auth = { authorization: `Bearer ${token}` };
    expect((await fetch(`${running.url}/v1/me`, { headers: auth })).status).toBe(200);
    expect((await fetch(`${running.url}/v1/auth/sign-out`, { method: 'POST', headers: auth })).status).toBe(
      204,
    );
    expect((await fetch(`${running.url}/v1/me`, { headers: auth })).status).toBe(401);
  });

  it('locks the slug over HTTP', async () => {
    const slug = (value: string) =>
      cloud.call('POST', '/v1/tenant/slug', { body: { slug: value }, token: sessionToken });
    const locked = await slug('alice-co');
    expect([locked.status, locked.body]).toEqual([
      200,
      { slug: 'alice-co', stackName: 'alice-co.stacks.localhost' },
    ]);
    const again = await slug('alice-two');
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('slug_locked');
  });

  it('a paid checkout shows active within seconds, without a sweep asked for (the processor event nudges one)', async () => {
    const { sessionToken: token } = await cloud.signIn('quick');
    const tenant = { login: 'quick', token, tenantId: '', email: '' };
    expect((await cloud.as(tenant, 'POST', '/v1/tenant/slug', { slug: 'quick-co' })).status).toBe(200);
    const checkout = await cloud.as(tenant, 'POST', '/v1/billing/checkout', { plan: 'plus' });
    expect((await payOnCheckout(checkout.body.url, TEST_CARDS.succeeds)).status).toBe(303);
    const active = await eventually(
      async () => (await cloud.as(tenant, 'GET', '/v1/billing/status')).body,
      (status) => status.billingState === 'active',
      { timeoutMs: 10_000, what: 'active without a sweep asked for' },
    );
    expect(active.history).toEqual([
      expect.objectContaining({ from: 'provisioning', to: 'active', reason: 'checkout_completed' }),
    ]);
    expect((await cloud.as(tenant, 'GET', '/v1/me')).body.billingState).toBe('active');
  });

  it('printed each part as it came up, then one banner; request lines only for state changes, money refusals and errors', async () => {
    const running = current as Running;
    // A refusal of a money operation (no customer yet: nothing to open a portal for).
    const refused = await cloud.call('POST', '/v1/billing/portal', { token: sessionToken });
    expect(refused.status).toBe(409);
    const output = await eventually(
      async () => running.output(),
      (text) => text.includes('"route":"POST /v1/billing/portal"'),
      { timeoutMs: 5_000, what: 'the refusal logged' },
    );
    const lines = output.split('\n');
    const at = (pattern: RegExp) => lines.findIndex((line) => pattern.test(line));
    const parts = ['table', 'queue', 'mail', 'workflows', 'keys', 'storage', 'code host', 'processor', 'api'];
    const ready = at(/^Stack Control Plane \(local\) ready in \d+\.\d s/);
    expect(at(/^Starting the local control plane/)).toBe(0);
    for (const part of parts) {
      const index = at(new RegExp(`^  ✓ ${part} +\\S.* \\(\\d+\\.\\d s\\)$`));
      expect(index, part).toBeGreaterThan(0);
      expect(index, part).toBeLessThan(ready);
    }
    const banner = lines.slice(ready, at(/^Press Ctrl-C to stop\.$/) + 1).join('\n');
    expect(banner).toContain(`Console          ${running.url}/`);
    expect(banner).toContain(`API              ${running.url}`);
    expect(banner).toMatch(/Processor +http:\/\/127\.0\.0\.1:\d+/);

    const requests = lines
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { message: string; route?: string; status?: number; kept?: string })
      .filter((line) => line.message === 'request');
    // The reads of this file (plans, me, status, the 401 without a session) wrote no line.
    expect(requests.filter((line) => line.route?.startsWith('GET '))).toEqual([]);
    expect(requests).toContainEqual(
      expect.objectContaining({ route: 'POST /v1/tenant/slug', status: 200, kept: 'state_change' }),
    );
    expect(requests).toContainEqual(
      expect.objectContaining({ route: 'POST /v1/billing/portal', status: 409, kept: 'money_refusal' }),
    );
  });

  it('Ctrl-C stops it and leaves no Java process behind', async () => {
    const running = current as Running;
    expect(javaProcessesOfThisRun().length).toBeGreaterThan(0);
    expect(await stop(running)).toBe(0);
    expect(javaProcessesOfThisRun()).toEqual([]);
  });

  it('keeps its data across restarts: the session still works (--verbose: every request has its line)', async () => {
    const running = await start(['--verbose']);
    current = running;
    const response = await fetch(`${running.url}/v1/billing/plans`, {
      headers: { authorization: `Bearer ${sessionToken}` },
    });
    expect(response.status).toBe(200);
    await eventually(
      async () => running.output(),
      (text) => /"message":"request".*"route":"GET \/v1\/billing\/plans".*"kept":"sampled"/.test(text),
      { timeoutMs: 5_000, what: 'the read logged under --verbose' },
    );
    expect(await stop(running)).toBe(0);
  }, 90_000);

  it('--fresh starts from an empty database: the old session is gone', async () => {
    current = await start(['--fresh']);
    const response = await fetch(`${current.url}/v1/billing/plans`, {
      headers: { authorization: `Bearer ${sessionToken}` },
    });
    expect(response.status).toBe(401);
    expect(await stop(current)).toBe(0);
    expect(javaProcessesOfThisRun()).toEqual([]);
  }, 90_000);
});
