import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** One email the control plane sent, as `GET /_local/mail` answers it. */
export interface SentMail {
  to: string;
  subject: string;
  text: string;
  /** The control plane's time (the adjustable clock) when SES accepted it. */
  sentAt: string;
}

interface KeptMail extends SentMail {
  /** The SES stand-in's message id: a copy is taken once. */
  messageId: string;
}

/** The part of the SES stand-in's `GET /store` answer that is copied. */
interface StoredEmail {
  messageId: string;
  destination: { to: string[] };
  subject: string;
  body: { text?: string };
  /** Epoch seconds, wall clock. */
  at: number;
}

/** Where the local control plane keeps its copy of the sent mail in its data folder. */
export const mailFile = (dataDirectory: string): string => path.join(dataDirectory, 'mail.json');

/**
 * The sent mail of the local control plane, kept across restarts. The SES stand-in
 * (aws-ses-v2-local) keeps what it accepted in memory only; this copies new entries from its
 * `GET /store` into `<data-dir>/mail.json` (after every sweep that sent mail, and before every read)
 * and serves the copy, so mail sent before a restart is still there after it.
 */
export class MailArchive {
  private readonly kept: KeptMail[] = [];
  private readonly seen = new Set<string>();
  private readonly sesEndpoint: string;
  private readonly clock: { offsetSeconds: number };
  private readonly file: string | undefined;
  private chain: Promise<unknown> = Promise.resolve();

  constructor(sesEndpoint: string, clock: { offsetSeconds: number }, file?: string) {
    this.sesEndpoint = sesEndpoint;
    this.clock = clock;
    this.file = file;
    if (file && existsSync(file)) {
      const saved = JSON.parse(readFileSync(file, 'utf8')) as { mail?: KeptMail[] };
      for (const mail of saved.mail ?? []) this.remember(mail);
    }
  }

  private remember(mail: KeptMail): void {
    if (this.seen.has(mail.messageId)) return;
    this.seen.add(mail.messageId);
    this.kept.push(mail);
  }

  /** Copies what SES accepted since the last copy; answers how many were new. Never runs twice at once. */
  sync(): Promise<number> {
    const run = this.chain.then(() => this.copyNew());
    this.chain = run.catch(() => undefined);
    return run;
  }

  private async copyNew(): Promise<number> {
    const response = await fetch(`${this.sesEndpoint}/store`);
    if (!response.ok) throw new Error(`the SES stand-in answered ${response.status} to GET /store`);
    const { emails } = (await response.json()) as { emails: StoredEmail[] };
    const before = this.kept.length;
    // The stand-in stamps wall-clock time; the control plane lives on the adjustable clock.
    const offsetMs = this.clock.offsetSeconds * 1000;
    for (const email of emails) {
      this.remember({
        messageId: email.messageId,
        to: email.destination.to.join(', '),
        subject: email.subject,
        text: email.body.text ?? '',
        sentAt: new Date(email.at * 1000 + offsetMs).toISOString(),
      });
    }
    const added = this.kept.length - before;
    if (added > 0 && this.file) {
      mkdirSync(path.dirname(this.file), { recursive: true });
      const partial = `${this.file}.partial`;
      writeFileSync(partial, JSON.stringify({ mail: this.kept }, null, 2));
      renameSync(partial, this.file);
    }
    return added;
  }

  /** The sent mail, oldest first; with `to`, only what went to that address (any case). */
  list(to?: string): SentMail[] {
    const wanted = to?.trim().toLowerCase();
    return this.kept
      .filter(
        (mail) =>
          wanted === undefined ||
          mail.to
            .split(',')
            .map((address) => address.trim().toLowerCase())
            .includes(wanted),
      )
      .map(({ to: address, subject, text, sentAt }) => ({ to: address, subject, text, sentAt }));
  }
}
