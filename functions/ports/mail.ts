import { SESv2Client, SendEmailCommand } from '@aws-sdk/client-sesv2';
import type { EmailContent } from '#core/emails.ts';

let client: SESv2Client | undefined;

const sender = (): string => {
  const from = process.env.MAIL_FROM;
  if (!from) throw new Error('MAIL_FROM is not configured');
  return from;
};

/** Sends one email through SES; answers SES's message id (its confirmation). */
export const sendEmail = async (to: string, content: EmailContent): Promise<string> => {
  client ??= new SESv2Client({});
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
