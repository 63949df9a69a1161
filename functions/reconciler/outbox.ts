import { logger } from '#http/logger.ts';
import { sendEmail } from '#ports/mail.ts';
import { claimEmail, listPendingEmails, markEmailSent, releaseEmail } from '#store/outbox.ts';

/**
 * Sends what the outbox holds, at most once per key: an email is claimed before the send, so a
 * crash after SES confirmed it never sends it again; a send SES refused goes back to pending.
 */
export const sendPendingEmails = async (
  now: () => Date,
  deadline: number,
): Promise<{ sent: number; failed: number; itemsRead: number }> => {
  const { emails, itemsRead } = await listPendingEmails(25);
  let sent = 0;
  let failed = 0;
  for (const email of emails) {
    if (performance.now() >= deadline) break;
    if (!(await claimEmail(email.key, now()))) continue;
    let messageId: string;
    try {
      messageId = await sendEmail(email.to, email);
    } catch (error) {
      failed++;
      logger.warn('email not sent; it will be retried', { key: email.key, error: error as Error });
      await releaseEmail(email.key, (error as Error).message, now());
      continue;
    }
    await markEmailSent(email.key, messageId, now());
    sent++;
  }
  return { sent, failed, itemsRead };
};
