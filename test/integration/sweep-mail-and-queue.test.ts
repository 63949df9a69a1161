import { randomUUID } from 'node:crypto';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { GetCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, expect, it } from 'vitest';
import { waitlistCapacityEmail } from '#core/emails.ts';
import { sendEmail } from '#ports/mail.ts';
import { queueDepth } from '#ports/queue.ts';
import { setCapacityTotal } from '#store/capacity.ts';
import { db, tableName } from '#store/client.ts';
import { keys } from '#store/keys.ts';
import { listPendingEmails, outboxPut } from '#store/outbox.ts';
import { joinWaitlist } from '#store/waitlist.ts';
import { type OutboxSender, sendPendingEmails } from '../../functions/reconciler/outbox.ts';
import { notifyWaitlist } from '../../functions/reconciler/waitlist.ts';
import { gatewayForFile } from '../support/file-gateway.ts';
import { emailsTo, uniqueRegion } from '../support/gateway.ts';
import { waitFor } from '../support/wait.ts';

// Failed messages come back after a second (the stand-in reads 0 as its default), so the
// dead-letter path runs in seconds.
const { api } = gatewayForFile({ processor: true, visibilityTimeoutSeconds: 1 });

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
      const { Item } = await db().send(
        new GetCommand({ TableName: tableName(), Key: keys.waitlist(tenant.tenantId, 'pro') }),
      );
      expect(Item?.notifiedAt).toEqual(expect.any(String));
    }
  });

  it('the waitlist is read when someone joins or capacity changes, not every sweep (and hourly at the latest)', async () => {
    const region = uniqueRegion();
    await setCapacityTotal({ region, location: `${region}-a`, plan: 'plus', total: 0 }, api.clock.now());
    const tenant = await api.readyTenant(region);
    const start = api.clock.now().getTime();
    const at = (minutes: number) => new Date(start + minutes * 60_000);
    // Whatever earlier tests left is read once now.
    await notifyWaitlist(at(0));
    expect(await notifyWaitlist(at(1))).toMatchObject({ read: false, itemsRead: 1 });

    await joinWaitlist({ tenantId: tenant.tenantId, plan: 'plus', region, joinedBy: tenant.userId }, at(1));
    // The join is counted: the next sweep reads the waitlist (no place yet: nobody is told).
    expect(await notifyWaitlist(at(2))).toMatchObject({ read: true, notified: 0 });
    expect(await notifyWaitlist(at(3))).toMatchObject({ read: false, itemsRead: 1, notified: 0 });
    expect(await notifyWaitlist(at(4))).toMatchObject({ read: false, itemsRead: 1 });

    // Capacity opens: the placeable Plans of a watched region changed, so the waitlist is read.
    await setCapacityTotal({ region, location: `${region}-a`, plan: 'plus', total: 1 }, at(5));
    expect(await notifyWaitlist(at(5))).toMatchObject({ read: true, notified: 1 });
    expect(await notifyWaitlist(at(6))).toMatchObject({ read: false, notified: 0 });
    // The backstop: an hour after the last read, it is read even if nothing seems to have changed.
    expect(await notifyWaitlist(at(64))).toMatchObject({ read: false });
    expect(await notifyWaitlist(at(66))).toMatchObject({ read: true, notified: 0 });
  });

  describe('a crash at any step of a send loses no email and repeats none that was recorded', () => {
    class Crash extends Error {}
    // Each test's email is written at `at(0)`, this test's start; the table is this file's own, so
    // no other file's sweep ever sees it.
    let base = 0;
    beforeEach(() => {
      base = api.clock.now().getTime();
    });
    const at = (ms: number) => () => new Date(base + ms);
    /** One send with no time budget: what it sends never depends on how fast the machine is. */
    const sendOnce = (now: () => Date, sender?: OutboxSender) =>
      sendPendingEmails(now, Number.POSITIVE_INFINITY, sender);
    /** Sends what is sendable at `now` until nothing is left (bounded). */
    const sendAll = async (now: () => Date) => {
      for (let i = 0; i < 40; i++) {
        const { itemsRead } = await sendOnce(now);
        if (itemsRead === 0) return;
      }
    };
    const outboxItem = async (key: string) =>
      (await db().send(new GetCommand({ TableName: tableName(), Key: keys.outbox(key) }))).Item;

    it.each(['claimed', 'sent', 'recorded'] as const)(
      'the sender dies right after the step "%s"',
      async (step) => {
        const to = `crash-${step}-${randomUUID().slice(0, 8)}@example.test`;
        const key = `test:crash:${step}:${randomUUID()}`;
        const content = waitlistCapacityEmail({
          plan: 'standard',
          homeRegion: 'eu',
          appUrl: 'https://app.test/',
        });
        await db().send(new TransactWriteCommand({ TransactItems: [outboxPut(key, to, content, at(0)())] }));

        // The sweep that dies: SES is the real stand-in; the process "ends" right after `step`.
        let crashed = false;
        const dying: OutboxSender = {
          send: sendEmail,
          afterStep: (reached, reachedKey) => {
            if (reachedKey !== key || reached !== step || crashed) return;
            crashed = true;
            throw new Crash(`crashed after ${step}`);
          },
        };
        await sendOnce(at(0), dying).catch((error: unknown) => {
          if (!(error instanceof Crash)) throw error;
        });
        expect(crashed).toBe(true);
        const deliveredBeforeRestart = step === 'claimed' ? 0 : 1;
        expect(await emailsTo(to)).toHaveLength(deliveredBeforeRestart);

        // Within the lease nobody sends it (the dead sender might still be mid-call).
        await sendAll(at(30_000));
        expect(await emailsTo(to)).toHaveLength(deliveredBeforeRestart);

        // After the lease: an unconfirmed send is sent again; a recorded one never.
        await sendAll(at(61_000));
        await sendAll(at(3_600_000));
        const delivered = await emailsTo(to);
        expect(delivered.length).toBeGreaterThanOrEqual(1);
        expect(delivered).toHaveLength(step === 'sent' ? 2 : 1);
        expect(delivered[0]?.subject).toBe(content.subject);
        const item = await outboxItem(key);
        expect(item).toMatchObject({
          status: 'sent',
          messageId: expect.any(String),
          attempts: step === 'recorded' ? 1 : 2,
        });
        expect(item?.GSI2PK).toBeUndefined();
        expect(
          (await listPendingEmails(at(86_400_000)(), 1000)).emails.some((email) => email.key === key),
        ).toBe(false);
      },
    );

    it('an email SES refused goes back to pending and is sent by the first run after its backoff (1 minute)', async () => {
      const to = `refused-${randomUUID().slice(0, 8)}@example.test`;
      const key = `test:refused:${randomUUID()}`;
      const content = waitlistCapacityEmail({ plan: 'plus', homeRegion: 'eu', appUrl: 'https://app.test/' });
      await db().send(new TransactWriteCommand({ TransactItems: [outboxPut(key, to, content, at(0)())] }));
      let refusedOnce = false;
      const refusing: OutboxSender = {
        send: async (recipient, email) => {
          if (recipient === to && !refusedOnce) {
            refusedOnce = true;
            throw new Error('SES throttled the request');
          }
          return sendEmail(recipient, email);
        },
      };
      await sendOnce(at(0), refusing);
      expect(refusedOnce).toBe(true);
      expect(await outboxItem(key)).toMatchObject({
        status: 'pending',
        lastError: 'SES throttled the request',
        GSI2SK: `${at(60_000)().toISOString()}#${key}`,
      });
      // Not before its backoff.
      await sendAll(at(59_999));
      expect(await emailsTo(to)).toHaveLength(0);
      await sendAll(at(60_000));
      expect(await emailsTo(to)).toHaveLength(1);
      expect(await outboxItem(key)).toMatchObject({ status: 'sent', attempts: 2 });
    });
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
    // Each sweep receives it once it is visible again (a second after the last receive) and fails.
    await waitFor(
      'the message in the dead-letter queue',
      async () => {
        await api.sweep();
        return (await queueDepth('PROCESSOR_EVENTS_DLQ_URL')) === 1;
      },
      { everyMs: 250, rounds: 200 },
    );
    expect(await queueDepth('PROCESSOR_EVENTS_QUEUE_URL')).toBe(0);
    sqs.destroy();
  });
});
