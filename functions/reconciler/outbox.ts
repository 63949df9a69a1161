import type { EmailContent } from '#core/emails.ts';
import { logger } from '#ports/logger.ts';
import { sendEmail } from '#ports/mail.ts';
import { claimEmail, listPendingEmails, markEmailSent, releaseEmail } from '#store/outbox.ts';

/**
 * How long a claim keeps other sweeps off an email: longer than the longest SES send
 * (`SES_SEND_MAX_MS`, 40 s; a unit test holds the two together), so that an
 * email is sent twice only when a sender crashed (or its Lambda timed out) between SES's
 * confirmation and its record.
 */
export const OUTBOX_LEASE_MS = 60_000;

/** Emails looked at per sweep. */
const BATCH = 25;

/** The steps of one send, in order; `afterStep` sees each (the crash-test seam; nothing else uses it). */
export type OutboxStep = 'claimed' | 'sent' | 'recorded';

export interface OutboxSender {
  send: (to: string, content: EmailContent) => Promise<string>;
  afterStep?: (step: OutboxStep, key: string) => void | Promise<void>;
}

const ses: OutboxSender = { send: sendEmail };

/**
 * Sends what the outbox holds, at least once until confirmed: an email is claimed for a lease
 * before the SES call and recorded as sent with SES's message id after it. A send SES refused goes
 * back to pending; a sender that dies before the record leaves the claim to run out, and the next
 * sweep after the lease sends it again. Only a recorded delivery is never repeated.
 */
export const sendPendingEmails = async (
  now: () => Date,
  deadline: number,
  sender: OutboxSender = ses,
): Promise<{ sent: number; failed: number; itemsRead: number }> => {
  const { emails, itemsRead } = await listPendingEmails(now(), BATCH);
  let sent = 0;
  let failed = 0;
  for (const email of emails) {
    if (performance.now() >= deadline) break;
    const claimedAt = now();
    const attempt = await claimEmail(email.key, claimedAt, new Date(claimedAt.getTime() + OUTBOX_LEASE_MS));
    if (attempt === undefined) continue;
    await sender.afterStep?.('claimed', email.key);
    let messageId: string;
    try {
      messageId = await sender.send(email.to, email);
    } catch (error) {
      failed++;
      logger.warn('email not sent; it will be retried', { key: email.key, error: error as Error });
      await releaseEmail(email.key, attempt, (error as Error).message, now());
      continue;
    }
    await sender.afterStep?.('sent', email.key);
    if (!(await markEmailSent(email.key, messageId, now())))
      logger.warn('email delivered again after its lease ran out', { key: email.key, attempt });
    await sender.afterStep?.('recorded', email.key);
    sent++;
  }
  return { sent, failed, itemsRead };
};
