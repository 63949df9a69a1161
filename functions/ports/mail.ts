import { SESv2Client, SendEmailCommand } from '@aws-sdk/client-sesv2';
import type { EmailContent } from '#core/emails.ts';
import { config } from './config.ts';
import { traced } from './tracer.ts';

/** One SES request is abandoned after this long (set explicitly: the SDK's default is no timeout). */
export const SES_REQUEST_TIMEOUT_MS = 10_000;
/** Attempts per send, the SDK's retries included. */
export const SES_MAX_ATTEMPTS = 2;
/**
 * The longest one `sendEmail` can take: every attempt timing out, plus the SDK's retry delays
 * (at most 20 s each). The outbox's lease on a claimed email must outlast it.
 */
export const SES_SEND_MAX_MS = SES_MAX_ATTEMPTS * SES_REQUEST_TIMEOUT_MS + (SES_MAX_ATTEMPTS - 1) * 20_000;

let client: SESv2Client | undefined;

/**
 * The SES client's HTTP options. `throwOnRequestTimeout` is what makes `requestTimeout` end the
 * request: without it the SDK only logs a warning and the send waits for ever (a mail stand-in
 * that held a send kept a sweep waiting past its lease; found by the chaos run, issue 25).
 */
export const sesRequestHandler = (requestTimeout = SES_REQUEST_TIMEOUT_MS) => ({
  connectionTimeout: 3_000,
  requestTimeout,
  throwOnRequestTimeout: true,
});

const sender = (): string => config.mailFrom();

/** Sends one email through SES; answers SES's message id (its confirmation). */
export const sendEmail = async (to: string, content: EmailContent): Promise<string> => {
  client ??= traced(
    new SESv2Client({
      maxAttempts: SES_MAX_ATTEMPTS,
      requestHandler: sesRequestHandler(),
    }),
  );
  const { MessageId } = await client.send(
    new SendEmailCommand({
      FromEmailAddress: sender(),
      Destination: { ToAddresses: [to] },
      Content: {
        Simple: {
          Subject: { Data: content.subject, Charset: 'UTF-8' },
          Body: {
            Text: { Data: content.text, Charset: 'UTF-8' },
            Html: { Data: content.html, Charset: 'UTF-8' },
          },
        },
      },
    }),
  );
  if (!MessageId) throw new Error('SES answered without a message id');
  return MessageId;
};
