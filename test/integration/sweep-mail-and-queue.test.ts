import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitlistCapacityEmail } from '#core/emails.ts';
import { sendEmail } from '#ports/mail.ts';
import { queueDepth } from '#ports/queue.ts';
import { setCapacityTotal } from '#store/capacity.ts';
import { db } from '#store/client.ts';
import { claimEmail, listPendingEmails, outboxPut } from '#store/outbox.ts';
import { emailsTo, type TestControlPlane, testGateway, uniqueRegion } from '../support/gateway.ts';

let api: TestControlPlane;
beforeAll(async () => {
  // Failed messages come back after a second (the stand-in reads 0 as its default), so the
  // dead-letter path runs in seconds.
  api = await testGateway({ processor: true, visibilityTimeoutSeconds: 1 });
});
afterAll(async () => {
  await api.stop();
});

describe('waitlist capacity emails', () => {
  it('each waitlisted tenant gets exactly one email, only after capacity opens', async () => {
    const region = uniqueRegion();
    await setCapacityTotal({ region, location: `${region}-a`, plan: 'pro', total: 0 }, api.clock.now());
    const first = await api.readyTenant(region);
    const second = await api.readyTenant(region);
    for (const tenant of [first, second]) {
      expect(
        (
          await api.call('POST', '/v1/billing/waitlist', {
            token: tenant.sessionToken,
            body: { plan: 'pro' },
          })
        ).status,
      ).toBe(201);
    }
    await api.sweep();
    await api.sweep();
    const addressOf = (login: string) => `${login}@users.code-host.test`;
    expect(await emailsTo(addressOf(first.login))).toEqual([]);

    await setCapacityTotal({ region, location: `${region}-a`, plan: 'pro', total: 1 }, api.clock.now());
    const opened = await api.sweep();
    expect(opened.waitlistNotified).toBe(2);
    await api.sweep();
    await api.sweep();
    for (const tenant of [first, second]) {
      const mail = await emailsTo(addressOf(tenant.login));
      expect(mail).toHaveLength(1);
      expect(mail[0]?.subject).toBe('The Pro Plan is available');
      expect(mail[0]?.body.text).toContain(`Home Region (${region})`);
      const again = await api.call('POST', '/v1/billing/waitlist', {
        token: tenant.sessionToken,
        body: { plan: 'pro' },
      });
      expect(again.json.notified).toBe(true);
    }
  });

  it('a crash between the send and its record never sends the email again', async () => {
    const to = `crash-${Date.now()}@example.test`;
    const key = `test:crash:${Date.now()}`;
    const content = waitlistCapacityEmail({
      plan: 'standard',
      homeRegion: 'eu',
      appUrl: 'https://app.test/',
    });
    await db().send(
      new TransactWriteCommand({ TransactItems: [outboxPut(key, to, content, api.clock.now())] }),
    );
    // What a sweep does up to the crash: claim, then SES confirms the send; the record never happens.
    expect(await claimEmail(key, api.clock.now())).toBe(true);
    await sendEmail(to, content);
    for (let i = 0; i < 3; i++) await api.sweep();
    expect(await emailsTo(to)).toHaveLength(1);
    expect((await listPendingEmails(100)).emails.some((email) => email.key === key)).toBe(false);
  });

  it('a second email with the same key is refused: one email per key', async () => {
    const key = `test:once:${Date.now()}`;
    const content = waitlistCapacityEmail({ plan: 'plus', homeRegion: 'eu', appUrl: 'https://app.test/' });
    const put = () =>
      db().send(
        new TransactWriteCommand({
          TransactItems: [outboxPut(key, 'once@example.test', content, api.clock.now())],
        }),
      );
    await put();
    await expect(put()).rejects.toThrow();
  });

  it('templates are plain, readable text and HTML', () => {
    const email = waitlistCapacityEmail({ plan: 'plus', homeRegion: 'eu', appUrl: 'https://app.test/' });
    expect(email.text).toContain(
      'The Plus Plan can now be placed in your Home Region (eu)'.replace('The Plus', 'the Plus'),
    );
    expect(email.text).not.toMatch(/<[a-z]/);
    expect(email.html).toMatch(/^<!doctype html>/);
  });
});

describe('the intake queue', () => {
  it('a message that keeps failing goes to the dead-letter queue after 5 receives, and operators can count it', async () => {
    const sqs = new SQSClient({});
    await sqs.send(new SendMessageCommand({ QueueUrl: api.queueUrl, MessageBody: 'this is not an event' }));
    for (let i = 0; i < 7; i++) {
      await api.sweep();
      await new Promise((resolve) => setTimeout(resolve, 1100));
    }
    expect(await queueDepth('PROCESSOR_EVENTS_DLQ_URL')).toBe(1);
    expect(await queueDepth('PROCESSOR_EVENTS_QUEUE_URL')).toBe(0);
    sqs.destroy();
  });
});
