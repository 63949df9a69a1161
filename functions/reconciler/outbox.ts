import { afterFailedAttempt } from '#core/email-retry.ts';
import type { EmailContent } from '#core/emails.ts';
import { refuse } from '#core/refusals/index.ts';
import { config } from '#ports/config.ts';
import { crashPoint } from '#ports/crash-point.ts';
import { logger } from '#ports/logger.ts';
import { sendEmail } from '#ports/mail.ts';
import { recordCrashLeftover } from '#ports/metrics.ts';
import { RateLimiter } from '#ports/pacer.ts';
import {
  claimEmail,
  getEmail,
  listPendingEmails,
  listTroubledEmails,
  markEmailSent,
  type OutboxEmail,
  parkEmail,
  releaseEmail,
  retryParkedEmail,
} from '#store/outbox.ts';

/**
 * How long a claim keeps other sweeps off an email: longer than the longest SES send
 * (`SES_SEND_MAX_MS`, 40 s; a unit test holds the two together), so that an
 * email is sent twice only when a sender crashed (or its Lambda timed out) between SES's
 * confirmation and its record.
 */
export const OUTBOX_LEASE_MS = 60_000;

/** Emails read per query of the pending index. */
const PAGE = 100;

/** The steps of one send, in order; `afterStep` sees each (the crash-test seam; nothing else uses it). */
export type OutboxStep = 'claimed' | 'sent' | 'recorded';

export interface OutboxSender {
  send: (to: string, content: EmailContent) => Promise<string>;
  afterStep?: (step: OutboxStep, key: string) => void | Promise<void>;
}

const ses: OutboxSender = { send: sendEmail };

export interface OutboxRun {
  sent: number;
  /** Attempts that failed (each retried after its backoff, or parked). */
  failed: number;
  /** Emails parked as `failed` this run: their last allowed attempt failed. */
  parked: number;
  itemsRead: number;
}

/**
 * Sends what the outbox holds, at least once until confirmed: an email is claimed for a lease
 * before the SES call and recorded as sent with SES's message id after it. A send SES refused goes
 * back to pending after a backoff (functions/core/email-retry.ts), and one that had its last
 * allowed attempt is parked as `failed` for an operator; a sender that dies before the record
 * leaves the claim to run out, and a sweep after the lease sends it again. Only a recorded delivery
 * is never repeated, and each key is sent by one claim at a time (the claim is a conditional write).
 *
 * Sends run side by side, paced to `perSecond` starts in any second (the SES account's maximum
 * send rate, `SES_MAX_SEND_RATE`), page after page of the pending index until it has nothing due
 * or the deadline passes.
 */
export const sendPendingEmails = async (
  now: () => Date,
  deadline: number,
  sender: OutboxSender = ses,
  perSecond: number = config.sesMaxSendRate(),
): Promise<OutboxRun> => {
  const run: OutboxRun = { sent: 0, failed: 0, parked: 0, itemsRead: 0 };
  const limiter = new RateLimiter({ perSecond });
  /** One email: parked if it has no attempt left, else claimed, sent and recorded. Answers whether it moved. */
  const deliver = async (email: OutboxEmail): Promise<boolean> => {
    if (email.attempts >= email.attemptLimit) {
      // Its last attempt's sender never came back (the lease ran out): no attempt is left.
      const parked = await parkEmail(
        email.key,
        email.attempts,
        `the last attempt's sender stopped before SES answered (its lease ran out)${email.lastError ? `; the attempt before: ${email.lastError}` : ''}`,
        now(),
        'lease_ran_out',
      );
      if (parked) {
        run.parked++;
        logger.error('email parked as failed: no attempt left', { key: email.key, attempts: email.attempts });
      }
      return parked;
    }
    const claimedAt = now();
    const claim = await claimEmail(email.key, claimedAt, new Date(claimedAt.getTime() + OUTBOX_LEASE_MS));
    if (claim === undefined) return false;
    const { attempt, attemptLimit } = claim;
    await sender.afterStep?.('claimed', email.key);
    let messageId: string;
    try {
      // The SES request itself is what is paced (a wait of a second or so: well within the lease).
      await limiter.acquire();
      messageId = await sender.send(email.to, email);
    } catch (error) {
      run.failed++;
      const reason = (error as Error).message;
      const next = afterFailedAttempt(attempt, attemptLimit, now());
      if (next.park) {
        if (await parkEmail(email.key, attempt, reason, now(), 'after_failed_attempt')) run.parked++;
        logger.error('email parked as failed after its last attempt', {
          key: email.key,
          attempt,
          error: error as Error,
        });
      } else {
        logger.warn('email not sent; it will be retried', {
          key: email.key,
          attempt,
          retryAt: next.retryAt.toISOString(),
          error: error as Error,
        });
        await releaseEmail(email.key, attempt, reason, next.retryAt);
      }
      return true;
    }
    await sender.afterStep?.('sent', email.key);
    crashPoint('email.sent');
    if (!(await markEmailSent(email.key, messageId, now()))) {
      logger.warn('email delivered again after its lease ran out', { key: email.key, attempt });
      recordCrashLeftover('email_sent_again');
    }
    await sender.afterStep?.('recorded', email.key);
    run.sent++;
    return true;
  };
  for (;;) {
    if (performance.now() >= deadline) break;
    const { emails, itemsRead } = await listPendingEmails(now(), PAGE);
    run.itemsRead += itemsRead;
    if (emails.length === 0) break;
    let next = 0;
    let moved = 0;
    const worker = async () => {
      for (;;) {
        if (performance.now() >= deadline) return;
        const email = emails[next++];
        if (!email) return;
        if (await deliver(email)) moved++;
      }
    };
    await Promise.all(Array.from({ length: Math.min(perSecond, emails.length) }, worker));
    // Everything read was taken by another sender (or changed): leave it for the next run.
    if (moved === 0 || emails.length < PAGE) break;
  }
  return run;
};

/** One email as an operator sees it (`npm run ops -- outbox list`). */
export interface OutboxEntry {
  key: string;
  to: string;
  subject: string;
  status: OutboxEmail['status'];
  attempts: number;
  attemptLimit: number;
  lastError: string | undefined;
  /** Parked: when; retrying: when its next attempt may start. */
  at: string | undefined;
}

const entryOf = (email: OutboxEmail, at: string | undefined): OutboxEntry => ({
  key: email.key,
  to: email.to,
  subject: email.subject,
  status: email.status,
  attempts: email.attempts,
  attemptLimit: email.attemptLimit,
  lastError: email.lastError,
  at,
});

/** The emails an operator should look at: parked ones, and ones being retried after a failure. */
export const outboxTrouble = async (): Promise<{ failed: OutboxEntry[]; retrying: OutboxEntry[] }> => {
  const { failed, retrying } = await listTroubledEmails();
  return {
    failed: failed.map((email) => entryOf(email, email.failedAt)),
    retrying: retrying.map((email) => entryOf(email, email.GSI2SK?.split('#')[0])),
  };
};

/**
 * An operator sends a parked email again (`npm run ops -- outbox retry <key>`): it is pending from
 * `now` with as many attempts again as a new one; the next sweep sends it, still once per key.
 * Refused, with nothing written, for an unknown key or an email that is not parked.
 */
export const retryEmail = async (key: string, now: Date): Promise<OutboxEntry> => {
  const email = await getEmail(key);
  if (!email) throw refuse('not_found', { key });
  if (email.status !== 'failed')
    throw refuse('not_parked', {
      key,
      why: `is ${email.status === 'sent' ? 'sent already: it is never sent twice' : `${email.status}, not parked: the sweep is still trying it`}. Only a parked (failed) email can be retried.`,
    });
  if (!(await retryParkedEmail(key, now)))
    throw refuse('not_parked', { key, why: 'changed meanwhile: run `outbox list` again.' });
  const retried = await getEmail(key);
  return entryOf(retried ?? email, now.toISOString());
};
