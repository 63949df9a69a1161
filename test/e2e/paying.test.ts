import { existsSync } from 'node:fs';
import { DeleteMessageCommand, ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPage, payOnCheckout, TEST_CARDS, totalShown } from '../support/hosted-pages.ts';
import {
  json,
  newDataDirectory,
  REPO,
  type Running,
  startLocalServer,
  stopLocalServer,
} from '../support/local-server.ts';

/** Paying, end to end on `npm start`, driven over HTTP as the tenant app would (and once by a browser). */

let server: Running;
beforeAll(async () => {
  // The sweep would drain the intake queue this file inspects: sweeps only on request here.
  server = await startLocalServer(newDataDirectory(), ['--fresh', '--manual-sweep']);
}, 90_000);
afterAll(async () => {
  if (server) expect(await stopLocalServer(server)).toBe(0);
});

const post = (path: string, token: string, body?: unknown) =>
  fetch(`${server.url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });

let tenantCount = 0;
const newTenant = async () => {
  tenantCount += 1;
  const login = `payer${tenantCount}`;
  const signedIn = await json(
    await fetch(`${server.url}/_local/sign-in`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ login }),
    }),
  );
  const token = signedIn.body.sessionToken as string;
  expect((await post('/v1/tenant/slug', token, { slug: `${login}-co` })).status).toBe(200);
  return token;
};

/** Every processor event now on the local intake queue (read and removed). */
const drainEvents = async (): Promise<{ type: string; data: { object: Record<string, unknown> } }[]> => {
  const environment = server.environment();
  const sqs = new SQSClient({
    endpoint: environment.AWS_ENDPOINT_URL_SQS,
    region: environment.AWS_REGION,
    credentials: {
      accessKeyId: environment.AWS_ACCESS_KEY_ID ?? '',
      secretAccessKey: environment.AWS_SECRET_ACCESS_KEY ?? '',
    },
  });
  const events = [];
  try {
    for (;;) {
      const { Messages } = await sqs.send(
        new ReceiveMessageCommand({
          QueueUrl: environment.PROCESSOR_EVENTS_QUEUE_URL,
          MaxNumberOfMessages: 10,
          WaitTimeSeconds: 0,
        }),
      );
      if (!Messages?.length) return events;
      for (const message of Messages) {
        events.push(JSON.parse(message.Body ?? '{}'));
        await sqs.send(
          new DeleteMessageCommand({
            QueueUrl: environment.PROCESSOR_EVENTS_QUEUE_URL,
            ReceiptHandle: message.ReceiptHandle,
          }),
        );
      }
    }
  } finally {
    sqs.destroy();
  }
};

/** Waits until the queue holds the wanted event types (webhooks arrive asynchronously). */
const eventsIncluding = async (types: string[]) => {
  const seen: Awaited<ReturnType<typeof drainEvents>> = [];
  for (let attempt = 0; attempt < 50; attempt++) {
    seen.push(...(await drainEvents()));
    if (types.every((type) => seen.some((event) => event.type === type))) return seen;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`only ${seen.map((e) => e.type).join(', ')} arrived`);
};

describe('paying on npm start', () => {
  it('sign in, lock the slug, read plans, check out plus, pay with 4242: the verified events are on the queue', async () => {
    const token = await newTenant();
    const plans = await json(
      await fetch(`${server.url}/v1/billing/plans`, { headers: { authorization: `Bearer ${token}` } }),
    );
    expect(plans.body.plans.find((p: { value: string }) => p.value === 'plus')).toMatchObject({
      placeable: true,
      monthlyPrice: { amount: 5000 },
    });
    const checkout = await json(await post('/v1/billing/checkout', token, { plan: 'plus' }));
    expect(checkout.status).toBe(200);
    await drainEvents();
    const paid = await payOnCheckout(checkout.body.url, TEST_CARDS.succeeds);
    expect(paid.status).toBe(303);
    expect(paid.location).toBe(`${server.url}/?checkout=complete`);
    const events = await eventsIncluding([
      'checkout.session.completed',
      'invoice.paid',
      'invoice.payment_succeeded',
    ]);
    const completed = events.find((e) => e.type === 'checkout.session.completed');
    expect(completed?.data.object).toMatchObject({
      status: 'complete',
      payment_status: 'paid',
      amount_total: 5000,
    });
  });

  it('a declined card shows the decline on the page and completes nothing', async () => {
    const token = await newTenant();
    const checkout = await json(await post('/v1/billing/checkout', token, { plan: 'standard' }));
    await drainEvents();
    const declined = await payOnCheckout(checkout.body.url, TEST_CARDS.declined);
    expect(declined.status).toBe(402);
    expect(declined.html).toContain('Your card was declined.');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await drainEvents()).toEqual([]);
    const page = await openPage(checkout.body.url);
    expect(page.status).toBe(200);
    expect(totalShown(page.html)).toBe('US$40.00');
  });

  it('with no pro capacity, checkout of pro is 409 no_capacity listing exactly the placeable Plans', async () => {
    const token = await newTenant();
    const { execFileSync } = await import('node:child_process');
    for (const location of ['eu-central-1a', 'eu-west-1a']) {
      execFileSync(
        'node_modules/.bin/node',
        [
          'lib/ops/cli.ts',
          'capacity',
          'set',
          '--region',
          'eu',
          '--location',
          location,
          '--plan',
          'pro',
          '--total',
          '0',
          '--data-dir',
          server.dataDirectory,
        ],
        { cwd: REPO, env: { PATH: process.env.PATH ?? '' } },
      );
    }
    const refused = await json(await post('/v1/billing/checkout', token, { plan: 'pro' }));
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ reason: 'no_capacity', availablePlans: ['standard', 'plus'] });
    const plans = await json(
      await fetch(`${server.url}/v1/billing/plans`, { headers: { authorization: `Bearer ${token}` } }),
    );
    expect(plans.body.plans.map((p: { placeable: boolean }) => p.placeable)).toEqual([true, true, false]);
  });
});

const CHROMIUM = '/usr/bin/chromium';

describe('in a browser', () => {
  // CI installs Debian's chromium (.ci/run); a laptop without it skips this one test.
  it.skipIf(!existsSync(CHROMIUM) && !process.env.CI)(
    'pays on the local Checkout page in Chromium',
    async () => {
      const token = await newTenant();
      const checkout = await json(await post('/v1/billing/checkout', token, { plan: 'plus' }));
      const browser = await chromium.launch({
        executablePath: CHROMIUM,
        args: [
          '--no-sandbox',
          '--disable-gpu',
          '--disable-background-networking',
          '--disable-component-update',
          '--no-first-run',
        ],
      });
      try {
        const page = await browser.newPage();
        await page.goto(checkout.body.url);
        await expect(page.getByTestId('total').textContent()).resolves.toBe('US$50.00');
        await page.getByLabel('Card number').fill(TEST_CARDS.succeeds);
        await page.getByLabel('Expiry').fill('12 / 34');
        await page.getByLabel('CVC').fill('123');
        await page.getByLabel('Cardholder name').fill('Browser Tenant');
        await Promise.all([
          page.waitForURL(`${server.url}/?checkout=complete`),
          page.getByRole('button', { name: 'Subscribe' }).click(),
        ]);
        expect(await page.textContent('h1')).toContain('Stack Control Plane');
      } finally {
        await browser.close();
      }
      const events = await eventsIncluding(['checkout.session.completed']);
      expect(events.some((e) => e.type === 'checkout.session.completed')).toBe(true);
    },
    60_000,
  );
});
