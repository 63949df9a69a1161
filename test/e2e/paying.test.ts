import { existsSync } from 'node:fs';
import { DeleteMessageCommand, ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import { launchChromium, payOnCheckoutPage } from '../support/console-browser.ts';
import { openPage, payOnCheckout, TEST_CARDS, totalShown } from '../support/hosted-pages.ts';
import { localClient, sharedCloud, type Tenant } from '../support/local-cloud.ts';
import { standInClientConfig } from '../support/local-server.ts';

/**
 * Paying, end to end on the shared `npm start`, driven over HTTP as the tenant app would (and once
 * by a browser). The shared server sweeps only when asked, so the processor's verified events wait
 * on the intake queue, where this file reads them (each test only its own tenant's).
 */

const cloud = localClient(sharedCloud);

interface ProcessorEvent {
  type: string;
  data: { object: Record<string, unknown> };
}

/** Every processor event now on the local intake queue, read and removed. */
const drainEvents = async (): Promise<ProcessorEvent[]> => {
  const environment = sharedCloud().environment();
  const sqs = new SQSClient(standInClientConfig(environment, 'SQS'));
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

/**
 * The tenant's events on the queue once every webhook the processor queued so far was delivered
 * (an advance of 0 s answers only then): its own, told apart by its tenant id in the event.
 */
const eventsOf = async (tenant: Tenant) => {
  await cloud.advance(0);
  return (await drainEvents()).filter((event) => JSON.stringify(event.data.object).includes(tenant.tenantId));
};

const checkout = async (tenant: Tenant, plan: string) => {
  const answer = await cloud.as(tenant, 'POST', '/v1/billing/checkout', { plan });
  expect(answer.status).toBe(200);
  return answer.body.url as string;
};

describe('paying on npm start', () => {
  it('sign in, lock the slug, read plans, check out plus, pay with 4242: the verified events are on the queue', async () => {
    const tenant = await cloud.newTenant('payer');
    const plans = await cloud.as(tenant, 'GET', '/v1/billing/plans');
    expect(plans.body.plans.find((p: { value: string }) => p.value === 'plus')).toMatchObject({
      placeable: true,
      monthlyPrice: { amount: 5000 },
    });
    const url = await checkout(tenant, 'plus');
    const paid = await payOnCheckout(url, TEST_CARDS.succeeds);
    expect(paid.status).toBe(303);
    expect(paid.location).toBe(`${sharedCloud().url}/?checkout=complete`);
    const events = await eventsOf(tenant);
    expect(events.map((e) => e.type)).toEqual(
      expect.arrayContaining(['checkout.session.completed', 'invoice.paid', 'invoice.payment_succeeded']),
    );
    const completed = events.find((e) => e.type === 'checkout.session.completed');
    expect(completed?.data.object).toMatchObject({
      status: 'complete',
      payment_status: 'paid',
      amount_total: 5000,
    });
  });

  it('a declined card shows the decline on the page and completes nothing', async () => {
    const tenant = await cloud.newTenant('declined');
    const url = await checkout(tenant, 'standard');
    const declined = await payOnCheckout(url, TEST_CARDS.declined);
    expect(declined.status).toBe(402);
    expect(declined.html).toContain('Your card was declined.');
    // Every webhook the decline could have sent has been delivered: none is about this tenant.
    expect(await eventsOf(tenant)).toEqual([]);
    const page = await openPage(url);
    expect(page.status).toBe(200);
    expect(totalShown(page.html)).toBe('US$40.00');
    // The same tenant's events are told apart (this check can fail): paying now sends them.
    expect((await cloud.pay(url)).status).toBe(200);
    expect((await eventsOf(tenant)).map((e) => e.type)).toContain('checkout.session.completed');
  });

  it('with no pro capacity, checkout of pro is 409 no_capacity listing exactly the placeable Plans', async () => {
    const tenant = await cloud.newTenant('no-room');
    await cloud.withPlanFull('pro', async () => {
      const refused = await cloud.as(tenant, 'POST', '/v1/billing/checkout', { plan: 'pro' });
      expect(refused.status).toBe(409);
      expect(refused.body).toMatchObject({ reason: 'no_capacity', availablePlans: ['standard', 'plus'] });
      const plans = await cloud.as(tenant, 'GET', '/v1/billing/plans');
      expect(plans.body.plans.map((p: { placeable: boolean }) => p.placeable)).toEqual([true, true, false]);
    });
  });
});

describe('in a browser', () => {
  // CI installs Debian's chromium (.ci/run); a laptop without it skips this one test.
  it.skipIf(!existsSync('/usr/bin/chromium') && !process.env.CI)(
    'pays on the local Checkout page in Chromium',
    async () => {
      const tenant = await cloud.newTenant('browser-payer');
      const url = await checkout(tenant, 'plus');
      const browser = await launchChromium();
      try {
        const page = await browser.newPage();
        await page.goto(url);
        await expect(page.getByTestId('total').textContent()).resolves.toBe('US$50.00');
        await payOnCheckoutPage(page, sharedCloud(), 'Browser Tenant');
        expect(await page.textContent('h1')).toContain('Stack Control Plane');
      } finally {
        await browser.close();
      }
      expect((await eventsOf(tenant)).map((e) => e.type)).toContain('checkout.session.completed');
    },
    60_000,
  );
});
