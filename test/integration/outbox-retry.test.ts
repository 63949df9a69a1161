import { randomUUID } from 'node:crypto';
import { GetCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, expect, it } from 'vitest';
import { EMAIL_MAX_ATTEMPTS, emailRetryDelayMs } from '#core/email-retry.ts';
import { type EmailContent, waitlistCapacityEmail } from '#core/emails.ts';
import { sendEmail } from '#ports/mail.ts';
import { db, tableName } from '#store/client.ts';
import { keys } from '#store/keys.ts';
import { outboxPut } from '#store/outbox.ts';
import { type OutboxSender, sendPendingEmails } from '../../functions/reconciler/outbox.ts';
import { gatewayForFile } from '../support/file-gateway.ts';
import { emailsTo } from '../support/gateway.ts';
import { opsDataFolder, runOps } from '../support/ops-cli.ts';

const { api } = gatewayForFile();

let base = 0;
beforeEach(() => {
  // Every test works hours apart from the others on its own times: nothing of one is due in another.
  base = api.clock.now().getTime() + Math.floor(Math.random() * 1e6) * 86_400_000;
});
const at = (ms: number) => new Date(base + ms);

const content = (): EmailContent =>
  waitlistCapacityEmail({ plan: 'plus', homeRegion: 'eu', appUrl: 'https://app.test/' });
const putEmail = async (key: string, to: string, email: EmailContent = content(), when = at(0)) =>
  db().send(new TransactWriteCommand({ TransactItems: [outboxPut(key, to, email, when)] }));
const outboxItem = async (key: string) =>
  (await db().send(new GetCommand({ TableName: tableName(), Key: keys.outbox(key), ConsistentRead: true })))
    .Item;
/** One run at `when` with no time budget, with the real SES stand-in unless told otherwise. */
const runAt = (when: Date, sender?: OutboxSender, perSecond = 10) =>
  sendPendingEmails(() => when, Number.POSITIVE_INFINITY, sender, perSecond);
/** When the email may be tried next, from its place in the pending index. */
const nextAttemptOf = async (key: string) =>
  Date.parse(String((await outboxItem(key))?.GSI2SK).split('#')[0] ?? '');

/** `npm run ops -- outbox retry <key>` refused: exit code 1, and stderr says `says`. */
const retryRefused = async (key: string, dataDir: string, says: string) => {
  const refused = await runOps(['outbox', 'retry', key, '--data-dir', dataDir]);
  expect(refused.code).toBe(1);
  expect(refused.stderr).toContain(says);
};
describe('an email SES keeps refusing is retried with backoff, then parked as failed', () => {
  it('the SES stand-in refuses it every time: 8 attempts, 1 minute doubling to 1 hour apart, then parked; ops lists and retries it', async () => {
    const key = `test:refused:${randomUUID()}`;
    const to = `refused-${randomUUID().slice(0, 8)}@example.test`;
    // The stand-in refuses a message without a subject (HTTP 400), as SES refuses a sandboxed recipient.
    await putEmail(key, to, { ...content(), subject: '' });

    let now = at(0).getTime();
    let parked = 0;
    for (let attempt = 1; attempt <= EMAIL_MAX_ATTEMPTS; attempt++) {
      // Not a moment before its time.
      expect((await runAt(new Date(now - 1))).failed).toBe(0);
      const run = await runAt(new Date(now));
      expect(run).toMatchObject({ sent: 0, failed: 1 });
      parked += run.parked;
      const item = await outboxItem(key);
      expect(item?.attempts).toBe(attempt);
      expect(item?.lastError).toContain('Bad Request');
      if (attempt < EMAIL_MAX_ATTEMPTS) {
        expect(item?.status).toBe('pending');
        const next = await nextAttemptOf(key);
        expect(next - now).toBe(emailRetryDelayMs(attempt));
        now = next;
      }
    }
    expect(parked).toBe(1);
    const item = await outboxItem(key);
    expect(item).toMatchObject({ status: 'failed', attempts: 8, GSI2PK: 'OUTBOX#FAILED' });
    expect(item?.failedAt).toBe(new Date(now).toISOString());
    // Parked: no sweep ever tries it again.
    expect(await runAt(at(400 * 86_400_000))).toMatchObject({ failed: 0, sent: 0 });
    expect((await outboxItem(key))?.attempts).toBe(8);
    expect(await emailsTo(to)).toEqual([]);

    const dataDir = opsDataFolder();
    const listed = await runOps(['outbox', 'list', '--data-dir', dataDir]);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain(key);
    expect(listed.stdout).toContain('8/8 attempts, parked');
    expect(listed.stdout).toContain('last error: Bad Request');

    const retried = await runOps(['outbox', 'retry', key, '--data-dir', dataDir]);
    expect(retried.code).toBe(0);
    expect(retried.stdout).toContain('pending again, with attempts up to 16');
    expect(await outboxItem(key)).toMatchObject({ status: 'pending', attempts: 8, attemptLimit: 16 });
    expect((await outboxItem(key))?.GSI2PK).toBe('OUTBOX#PENDING');
    // A second retry of an email that is no longer parked is refused, and changes nothing.
    await retryRefused(key, dataDir, 'not_parked');
    expect((await outboxItem(key))?.attemptLimit).toBe(16);
    await retryRefused('test:no-such-key', dataDir, 'not_found');
  }, 60_000);

  it('a retried email that SES now accepts is sent once, and a sent one is never retried', async () => {
    const key = `test:sandbox:${randomUUID()}`;
    const to = `sandboxed-${randomUUID().slice(0, 8)}@example.test`;
    await putEmail(key, to);
    // The SES sandbox: the recipient is not verified, so every send to it is refused.
    let verified = false;
    const sandbox: OutboxSender = {
      send: async (recipient, email) => {
        if (recipient === to && !verified) throw new Error('Email address is not verified.');
        return sendEmail(recipient, email);
      },
    };
    let now = at(0).getTime();
    for (let attempt = 1; attempt <= EMAIL_MAX_ATTEMPTS; attempt++) {
      await runAt(new Date(now), sandbox);
      if (attempt < EMAIL_MAX_ATTEMPTS) now = await nextAttemptOf(key);
    }
    expect((await outboxItem(key))?.status).toBe('failed');
    verified = true;
    const dataDir = opsDataFolder();
    expect((await runOps(['outbox', 'retry', key, '--data-dir', dataDir])).code).toBe(0);
    // The ops command's "now" is the local clock (wall clock here): the email is due from then.
    await runAt(new Date(Date.now() + 1000), sandbox);
    expect(await emailsTo(to)).toHaveLength(1);
    expect(await outboxItem(key)).toMatchObject({ status: 'sent', attempts: 9 });
    await retryRefused(key, dataDir, 'sent already');
  }, 60_000);

  it("an email whose last attempt's sender died is parked once that lease runs out, never sent a ninth time", async () => {
    const key = `test:died:${randomUUID()}`;
    const to = `died-${randomUUID().slice(0, 8)}@example.test`;
    await putEmail(key, to);
    // Its 8th claim, whose sender died: the lease ended a minute ago.
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.outbox(key),
        UpdateExpression: 'SET #status = :sending, attempts = :eight, leaseUntil = :lease, GSI2SK = :sk',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: {
          ':sending': 'sending',
          ':eight': EMAIL_MAX_ATTEMPTS,
          ':lease': at(60_000).toISOString(),
          ':sk': `${at(60_000).toISOString()}#${key}`,
        },
      }),
    );
    // While the lease runs, nothing touches it.
    expect((await runAt(at(30_000))).parked).toBe(0);
    expect((await outboxItem(key))?.status).toBe('sending');
    const run = await runAt(at(120_000));
    expect(run).toMatchObject({ parked: 1, sent: 0, failed: 0 });
    expect(await outboxItem(key)).toMatchObject({ status: 'failed', attempts: 8, GSI2PK: 'OUTBOX#FAILED' });
    expect((await outboxItem(key))?.lastError).toContain('its lease ran out');
    expect(await emailsTo(to)).toEqual([]);
  });
});

describe('the outbox sends side by side, paced to the SES rate, once per key', () => {
  it('two sweeps racing over the same emails, with failures and their retries, deliver each key exactly once', async () => {
    const emails = Array.from({ length: 24 }, (_, i) => ({
      key: `test:race:${i}:${randomUUID()}`,
      to: `race-${i}-${randomUUID().slice(0, 8)}@example.test`,
    }));
    for (const email of emails) await putEmail(email.key, email.to);
    const refusedOnce = new Set(emails.filter((_, i) => i % 3 === 0).map((email) => email.to));
    const sends = new Map<string, number>();
    let inFlight = 0;
    let mostInFlight = 0;
    const starts: number[] = [];
    const flaky: OutboxSender = {
      send: async (recipient, email) => {
        starts.push(performance.now());
        inFlight++;
        mostInFlight = Math.max(mostInFlight, inFlight);
        try {
          // Slow enough that the two sweeps overlap.
          await new Promise((resolve) => setTimeout(resolve, 20));
          if (refusedOnce.delete(recipient)) throw new Error('SES throttled the request');
          const id = await sendEmail(recipient, email);
          sends.set(recipient, (sends.get(recipient) ?? 0) + 1);
          return id;
        } finally {
          inFlight--;
        }
      },
    };
    const [first, second] = await Promise.all([runAt(at(0), flaky, 4), runAt(at(0), flaky, 4)]);
    expect(first.sent + second.sent).toBe(16);
    expect(first.failed + second.failed).toBe(8);
    // Side by side: more than one send at a time, never more than the two runs' rates together.
    expect(mostInFlight).toBeGreaterThan(1);
    expect(mostInFlight).toBeLessThanOrEqual(8);
    // The failed ones come back after their backoff, in two racing sweeps again.
    await Promise.all([runAt(at(60_000), flaky, 4), runAt(at(60_000), flaky, 4)]);
    for (const email of emails) {
      expect(sends.get(email.to), email.to).toBe(1);
      expect(await emailsTo(email.to)).toHaveLength(1);
      expect((await outboxItem(email.key))?.status).toBe('sent');
    }
  }, 60_000);

  it('one sweep never starts more sends in a second than SES_MAX_SEND_RATE', async () => {
    const emails = Array.from({ length: 9 }, (_, i) => ({
      key: `test:pace:${i}:${randomUUID()}`,
      to: `pace-${i}-${randomUUID().slice(0, 8)}@example.test`,
    }));
    for (const email of emails) await putEmail(email.key, email.to);
    const starts: number[] = [];
    const timed: OutboxSender = {
      send: async (recipient, email) => {
        starts.push(performance.now());
        return sendEmail(recipient, email);
      },
    };
    const run = await runAt(at(0), timed, 4);
    expect(run.sent).toBe(9);
    // 9 sends at 4 a second: the 5th starts a second after the 1st, the 9th a second after the 5th.
    for (let i = 4; i < starts.length; i++)
      expect((starts[i] ?? 0) - (starts[i - 4] ?? 0)).toBeGreaterThanOrEqual(999);
  }, 60_000);
});
