import { createHmac } from 'node:crypto';
import { CONSOLE_SECURITY_HEADERS } from '../console-headers.ts';

/**
 * The smoke test's checks (`npm run smoke`): after a deploy, or against `npm start`, what must
 * hold for a stage to take its first paying tenant, each answered by one request or one read.
 * The target (lib/ops/smoke.ts) says how each is read: HTTP for the site, the stage's AWS
 * account (or the local control plane) for the rest. A check that cannot be read there says so
 * and is skipped, never passed.
 */

export type Verdict = 'holds' | 'MISSES' | 'skipped';

export interface CheckResult {
  check: string;
  verdict: Verdict;
  detail: string;
  /** What to do when it misses: the command of the deploy checklist that fixes it. */
  fix?: string;
}

/** How the checks reach the stage: its site, and the reads that are not HTTP. */
export interface SmokeTarget {
  label: string;
  /** The console's site (`https://<console domain>`, or the local server), no trailing slash. */
  site: string;
  /** The stage, for the commands a miss names (`--stage <stage>`, or `--local`). */
  flag: string;
  /** The webhook signing secret, or undefined when this target cannot read it. */
  webhookSecret(): Promise<string | undefined>;
  /** "Now" as the stage's API reads it (the signature's time): the local clock, or the wall clock. */
  now(): Date;
  /** Completed sweeps in the last `withinMs`, or undefined when this target cannot tell. */
  sweepsCompleted?(withinMs: number): Promise<number>;
  /** The Home Region's placeable Plans. */
  placeablePlans?(): Promise<string[]>;
  /** The secrets still holding a placeholder (names), and how many were read. */
  placeholderSecrets?(): Promise<{ read: number; placeholders: string[] }>;
  /** Whether the sender identity is verified for sending. */
  sender?(): Promise<{ verified: boolean; identity: string } | { note: string }>;
  /** The alarms in ALARM, of how many. */
  alarms?(): Promise<{ ringing: string[]; of: number } | { note: string }>;
}

/** How long the smoke waits for a sweep after it delivered its signed event (the nudge runs one). */
export const SWEEP_WINDOW_MS = 2 * 60_000;

/** The processor's signature header (Stripe's scheme: HMAC-SHA256 of `<t>.<payload>`, hex). */
export const processorSignature = (payload: string, secret: string, unixSeconds: number): string =>
  `t=${unixSeconds},v1=${createHmac('sha256', secret).update(`${unixSeconds}.${payload}`).digest('hex')}`;

/** A harmless event: no tenant, no customer; the sweep records it as unmatched and moves on. */
export const smokeEvent = (now: Date) =>
  JSON.stringify({
    id: `evt_smoke_${now.getTime().toString(36)}${Math.random().toString(36).slice(2, 8)}`,
    object: 'event',
    type: 'smoke.check',
    created: Math.floor(now.getTime() / 1000),
    livemode: false,
    data: { object: { object: 'smoke_check' } },
  });

const WEBHOOK_PATH = '/v1/webhooks/processor';

type Fetch = typeof fetch;

const holds = (check: string, detail: string): CheckResult => ({ check, verdict: 'holds', detail });
const misses = (check: string, detail: string, fix: string): CheckResult => ({
  check,
  verdict: 'MISSES',
  detail,
  fix,
});
const skipped = (check: string, detail: string): CheckResult => ({ check, verdict: 'skipped', detail });

/** Runs one check; a thrown error is that check's miss, with its message. */
const attempt = async (check: string, fix: string, run: () => Promise<CheckResult>): Promise<CheckResult> => {
  try {
    return await run();
  } catch (error) {
    return misses(check, `could not be read: ${(error as Error).message.split('\n')[0]}`, fix);
  }
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Every check, in order (the signed event goes before the sweep check: its nudge runs a sweep).
 * `waitMs` bounds the wait for a sweep (about a minute in the cloud, where metrics arrive late).
 */
export const runSmoke = async (
  target: SmokeTarget,
  options: { fetch?: Fetch; sweepWaitMs?: number; pollMs?: number } = {},
): Promise<CheckResult[]> => {
  const http = options.fetch ?? fetch;
  const results: CheckResult[] = [];
  const redeploy = `npm run deploy -- -c stage=<stage>, then npm run smoke -- ${target.flag}`;

  const page = 'console page and its security headers';
  results.push(
    await attempt(page, redeploy, async () => {
      const answer = await http(`${target.site}/`, { redirect: 'manual' });
      const type = answer.headers.get('content-type') ?? '';
      await answer.arrayBuffer();
      if (answer.status !== 200 || !type.startsWith('text/html'))
        return misses(page, `GET / answered ${answer.status} ${type}`, redeploy);
      const expected: Record<string, string> = { ...CONSOLE_SECURITY_HEADERS };
      const wrong = Object.entries(expected)
        .filter(([name, value]) => answer.headers.get(name) !== value)
        .map(([name]) => name);
      if (target.site.startsWith('https://') && !answer.headers.get('strict-transport-security'))
        wrong.push('strict-transport-security');
      return wrong.length
        ? misses(page, `200, but without ${wrong.join(', ')}`, redeploy)
        : holds(
            page,
            `200 text/html with ${Object.keys(expected).length + (target.site.startsWith('https://') ? 1 : 0)} security headers`,
          );
    }),
  );

  const api = 'API refuses a request without a session';
  results.push(
    await attempt(api, redeploy, async () => {
      const answer = await http(`${target.site}/v1/me`);
      await answer.arrayBuffer();
      return answer.status === 401 || answer.status === 403
        ? holds(api, `GET /v1/me answered ${answer.status}`)
        : misses(api, `GET /v1/me answered ${answer.status}, not 401 or 403`, redeploy);
    }),
  );

  const unsigned = 'webhook refuses an unsigned event';
  results.push(
    await attempt(unsigned, redeploy, async () => {
      const answer = await http(`${target.site}${WEBHOOK_PATH}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: smokeEvent(target.now()),
      });
      await answer.arrayBuffer();
      return answer.status === 400
        ? holds(unsigned, `answered 400`)
        : misses(unsigned, `answered ${answer.status}, not 400`, redeploy);
    }),
  );

  const signed = "webhook accepts an event signed with the stage's secret";
  const setWebhookSecret = `paste the endpoint's signing secret: npm run ops -- secrets set processor-webhook-secret ${target.flag}`;
  let delivered = false;
  const secret = await target.webhookSecret().catch(() => undefined);
  if (secret === undefined)
    results.push(skipped(signed, 'the secret cannot be read here (--stage or --local reads it)'));
  else
    results.push(
      await attempt(signed, setWebhookSecret, async () => {
        const now = target.now();
        const payload = smokeEvent(now);
        const answer = await http(`${target.site}${WEBHOOK_PATH}`, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'stripe-signature': processorSignature(payload, secret, Math.floor(now.getTime() / 1000)),
          },
          body: payload,
        });
        const body = await answer.text();
        if (answer.status === 200) {
          delivered = true;
          return holds(signed, 'answered 200 (queued; the sweep records it as matching no tenant)');
        }
        return misses(
          signed,
          `answered ${answer.status}${answer.status >= 500 ? ' (is the secret still the placeholder?)' : ''}: ${body.slice(0, 120)}`,
          setWebhookSecret,
        );
      }),
    );

  const sweep = 'a sweep completed in the last two minutes';
  const sweepFix = `see docs/runbook.md, "Alarms" (NoSweepCompleted); then npm run smoke -- ${target.flag}`;
  if (!target.sweepsCompleted)
    results.push(skipped(sweep, 'not readable here (--stage or --local reads it)'));
  else {
    const read = target.sweepsCompleted.bind(target);
    results.push(
      await attempt(sweep, sweepFix, async () => {
        // The signed event nudged a sweep: wait for it (or the schedule's) to show.
        const until = Date.now() + (options.sweepWaitMs ?? 60_000);
        for (;;) {
          const count = await read(SWEEP_WINDOW_MS);
          if (count > 0) return holds(sweep, `${count} in the last 2 minutes`);
          if (Date.now() >= until)
            return misses(
              sweep,
              `none in the last 2 minutes${delivered ? ', though the signed event nudged one' : ''}`,
              sweepFix,
            );
          await sleep(options.pollMs ?? 5_000);
        }
      }),
    );
  }

  const capacity = 'capacity registered in the Home Region';
  const seed = `npm run ops -- capacity seed ${target.flag} (the context "capacity"), or capacity set`;
  if (!target.placeablePlans)
    results.push(skipped(capacity, 'not readable here (--stage or --local reads it)'));
  else {
    const read = target.placeablePlans.bind(target);
    results.push(
      await attempt(capacity, seed, async () => {
        const plans = await read();
        return plans.length > 0
          ? holds(capacity, `placeable: ${plans.join(', ')}`)
          : misses(capacity, 'no Plan can be placed: every checkout answers no_capacity', seed);
      }),
    );
  }

  const secrets = 'no secret left as a placeholder';
  const status = `npm run ops -- secrets status ${target.flag}, then secrets set <name> for each`;
  if (!target.placeholderSecrets)
    results.push(skipped(secrets, 'not readable here (--stage or --local reads them)'));
  else {
    const read = target.placeholderSecrets.bind(target);
    results.push(
      await attempt(secrets, status, async () => {
        const { read: count, placeholders } = await read();
        return placeholders.length === 0
          ? holds(secrets, `${count} read, none a placeholder`)
          : misses(secrets, `still a placeholder: ${placeholders.join(', ')}`, status);
      }),
    );
  }

  const sender = 'sender identity verified (SES)';
  const verify =
    'verify the domain of mailFrom in SES (DKIM) in the stage\'s region: README, "Deploy checklist"';
  if (!target.sender) results.push(skipped(sender, 'not readable here (--stage reads it)'));
  else {
    const read = target.sender.bind(target);
    results.push(
      await attempt(sender, verify, async () => {
        const answer = await read();
        if ('note' in answer) return holds(sender, answer.note);
        return answer.verified
          ? holds(sender, `${answer.identity} is verified for sending`)
          : misses(sender, `${answer.identity} is not verified for sending`, verify);
      }),
    );
  }

  const alarms = 'no alarm in ALARM';
  const runbook = 'docs/runbook.md, "Alarms": what each means and what to do';
  if (!target.alarms) results.push(skipped(alarms, 'not readable here (--stage reads them)'));
  else {
    const read = target.alarms.bind(target);
    results.push(
      await attempt(alarms, runbook, async () => {
        const answer = await read();
        if ('note' in answer) return holds(alarms, answer.note);
        return answer.ringing.length === 0
          ? holds(alarms, `${answer.of} alarms, none in ALARM`)
          : misses(alarms, `in ALARM: ${answer.ringing.join(', ')}`, runbook);
      }),
    );
  }
  return results;
};

/** The table the smoke prints: one line per check, then what to do for each miss. */
export const smokeReport = (label: string, results: readonly CheckResult[]): string => {
  const width = Math.max(...results.map((result) => result.check.length));
  const lines = [
    `Smoke test of ${label}`,
    '',
    `${'check'.padEnd(width)}  ${'verdict'.padEnd(7)}  detail`,
    ...results.map(
      (result) => `${result.check.padEnd(width)}  ${result.verdict.padEnd(7)}  ${result.detail}`,
    ),
  ];
  const missed = results.filter((result) => result.verdict === 'MISSES');
  const held = results.filter((result) => result.verdict === 'holds').length;
  lines.push('');
  if (missed.length === 0)
    lines.push(
      `smoke: ${held} of ${results.length} checks hold${held < results.length ? `, ${results.length - held} skipped` : ''}, none misses.`,
    );
  else {
    lines.push(`smoke: ${missed.length} of ${results.length} checks miss. What to do:`);
    for (const result of missed)
      lines.push(`  - ${result.check}: ${result.fix ?? 'see the README, "Deploy checklist"'}`);
  }
  return lines.join('\n');
};
