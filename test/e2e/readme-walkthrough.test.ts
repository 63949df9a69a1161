import { execFile, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, localClient } from '../support/local-cloud.ts';
import {
  json,
  NODE,
  newDataDirectory,
  REPO,
  type Running,
  startLocalServer,
  stopLocalServer,
  userEnvironment,
} from '../support/local-server.ts';

/**
 * The README's walkthrough, run as a newcomer would paste it: its ```sh blocks, in order, in one
 * bash, against `npm start` on a fresh data folder (the port swapped for the one it got).
 *
 * This file has a server of its own, not the e2e run's shared one: the walkthrough starts from an
 * empty database (its first tenant, its mail, its clock offset of exactly a week), relies on the
 * sweeps `npm start` runs by itself (the shared server sweeps only when asked), reads the lines
 * the server printed, and stops and starts it again to show the mail survives a restart.
 */

const run = promisify(execFile);
const README = readFileSync(path.join(REPO, 'README.md'), 'utf8');
const MARK = '@@@ end of block @@@';

/** The fenced ```sh (or other `language`) blocks of a `### ` section of the README (up to the next heading). */
const sectionBlocks = (heading: string, language = 'sh'): string[] => {
  const start = README.indexOf(`### ${heading}`);
  if (start < 0) throw new Error(`README.md has no "### ${heading}" section`);
  const rest = README.slice(start + 1);
  const end = rest.search(/\n#{2,3} /);
  const section = end < 0 ? rest : rest.slice(0, end);
  return [...section.matchAll(new RegExp(`\`\`\`${language}\n([\\s\\S]*?)\`\`\``, 'g'))].map(
    (match) => match[1] ?? '',
  );
};

// biome-ignore lint/suspicious/noExplicitAny: the walkthrough's answers are read freely
const jsonLines = (output: string): any[] =>
  output
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line));

let server: Running | undefined;
let dataDirectory = '';

/**
 * `blocks` pasted into one bash after `prelude` (each with the README's port swapped for the
 * server's), as a newcomer would: the JSON lines each block printed.
 */
// biome-ignore lint/suspicious/noExplicitAny: the README's answers are read freely
const pasted = async (blocks: string[], prelude: string[] = []): Promise<any[][]> => {
  const port = new URL((server as Running).url).port;
  const onPort = (text: string) => text.replaceAll('localhost:3000', `localhost:${port}`);
  const script = [
    'set -euo pipefail',
    ...prelude.map(onPort),
    ...blocks.map((block) => `${onPort(block)}\necho '${MARK}'`),
  ].join('\n');
  const { stdout } = await run('bash', ['-c', script], {
    cwd: REPO,
    env: userEnvironment(),
    timeout: 90_000,
  });
  return stdout.split(`${MARK}\n`).map(jsonLines);
};
afterAll(async () => {
  if (server && server.process.exitCode === null) await stopLocalServer(server);
});

describe('the README walkthrough, pasted into bash on a fresh npm start', () => {
  const blocks = sectionBlocks('Walkthrough');
  // biome-ignore lint/suspicious/noExplicitAny: the walkthrough's answers are read freely
  let answers: any[][] = [];

  beforeAll(async () => {
    dataDirectory = newDataDirectory();
    server = await startLocalServer(dataDirectory, ['--fresh']);
    answers = await pasted(blocks);
  }, 180_000);

  it('has the blocks it documents (sign in, waitlist, pay, a week, the renewal, the grace, the mail)', () => {
    expect(blocks).toHaveLength(7);
    expect(answers).toHaveLength(8);
  });

  it('signs in, lists the Plans and locks the slug', () => {
    const [plans, slug] = answers[0] ?? [];
    expect(plans.plans.map((plan: { value: string }) => plan.value)).toEqual(['standard', 'plus', 'pro']);
    expect(slug).toEqual({ slug: 'alice-co', stackName: 'alice-co.stacks.localhost' });
    expect(answers[1]?.[0]).toMatchObject({ plan: 'pro', placeableNow: true });
  });

  it('pays without a browser through the local route: active at once', () => {
    const [paid, status] = answers[2] ?? [];
    expect(paid).toEqual({ paid: true });
    expect(status).toMatchObject({ billingState: 'active', graceDeadline: null });
  });

  it('a week later the session has expired (401 expired_session)', () => {
    const [advanced, expired] = answers[3] ?? [];
    expect(advanced.offsetSeconds).toBe(604_800);
    expect(expired.error.code).toBe('expired_session');
  });

  it('the renewal a month after paying fails: past-due, with 7 days of grace', () => {
    const [, status] = answers[4] ?? [];
    expect(status.billingState).toBe('past-due');
    const renewal = status.history.at(-1);
    expect(renewal).toMatchObject({ from: 'active', to: 'past-due' });
    expect(Date.parse(status.graceDeadline)).toBeGreaterThan(Date.parse(renewal.at));
  });

  it('7 days later: suspended, and the history shows every step', () => {
    const [, status] = answers[5] ?? [];
    expect(status.billingState).toBe('suspended');
    expect(status.history.map((h: { from: string; to: string }) => `${h.from} -> ${h.to}`)).toEqual([
      'provisioning -> active',
      'active -> past-due',
      'past-due -> suspended',
    ]);
  });

  it('the sent mail is read from GET /_local/mail', () => {
    const [mail] = answers[6] ?? [];
    expect(mail.emails).toEqual([
      {
        to: 'alice@users.code-host.test',
        subject: 'The Pro Plan is available',
        text: expect.stringContaining('Pro Plan can now be placed'),
        sentAt: expect.any(String),
      },
    ]);
  });

  it('npm start printed one line per sweep that changed something, none for idle sweeps', () => {
    const lines = (server as Running).output().split('\n');
    const sweeps = lines.filter((line) => line.startsWith('sweep ('));
    expect(
      sweeps.some((line) => /\d+ events? applied, 1 tenant moved \(active -> past-due\)/.test(line)),
    ).toBe(true);
    expect(sweeps.some((line) => /1 tenant moved \(past-due -> suspended\)/.test(line))).toBe(true);
    expect(sweeps.some((line) => /1 email sent/.test(line))).toBe(true);
    // The walkthrough's own sweeps find nothing left to do (npm start swept at once): they are quiet.
    expect(sweeps.filter((line) => /0 events applied, 0 tenants moved, 0 emails sent/.test(line))).toEqual(
      [],
    );
  });
});

describe('the README sections after the walkthrough, each from a fresh active tenant of its own', () => {
  const sections = ['Plan Changes', 'Credentials'].map((heading) => ({
    heading,
    blocks: sectionBlocks(heading),
  }));
  const cloud = localClient(() => server as Running);
  // biome-ignore lint/suspicious/noExplicitAny: the README's answers are read freely
  let answers: any[][] = [];

  beforeAll(async () => {
    // Every block in order, in one bash (the Credentials section uses the Plan Changes' `newtenant`).
    answers = await pasted(sections.flatMap(({ blocks }) => blocks));
  }, 120_000);

  it('has the blocks it documents (a tenant and its Dispatcher, the change; a tenant and its Credential)', () => {
    expect(sections.map(({ heading, blocks }) => `${heading}: ${blocks.length}`)).toEqual([
      'Plan Changes: 2',
      'Credentials: 1',
    ]);
  });

  it('Plan Changes: a new active tenant starts its Dispatcher, previews, confirms and the change completes', async () => {
    const [started] = answers[0] ?? [];
    expect(started).toMatchObject({ dispatcherId: expect.any(String) });
    const [preview, confirmed, listed] = answers[1] ?? [];
    expect(preview).toMatchObject({ stackId: 'primary', estimateUnavailable: null });
    expect(preview.estimate.total).toBeGreaterThan(0);
    expect(preview.refusals).toEqual([]);
    expect(confirmed).toMatchObject({ stackId: 'primary', currentPlan: 'standard', requestedPlan: 'pro' });
    expect(listed.planChanges).toHaveLength(1);
    // The simulated Dispatcher carries it out by itself.
    const { sessionToken } = await cloud.signIn('carol');
    const tenant = { login: 'carol', token: sessionToken, tenantId: '', email: '' };
    const done = await eventually(
      async () => (await cloud.as(tenant, 'GET', '/v1/plan-changes?stackId=primary')).body.planChanges[0],
      (change) => change.status === 'completed',
      { timeoutMs: 60_000, what: 'the README’s Plan Change completed' },
    );
    expect(done.requestedPlan).toBe('pro');
  }, 90_000);

  it('Credentials: a new active tenant provisions a Credential; the list never shows the material', () => {
    const [created, listed] = answers[2] ?? [];
    expect(created).toMatchObject({ name: 'work-key', kind: 'api_key' });
    expect(listed.credentials.map((c: { name: string }) => c.name)).toEqual(['work-key']);
    expect(JSON.stringify(listed)).not.toContain('sk-your-key');
  });
});

describe('the README "Coming back" section: a tenant leaves, time passes, the same login starts a new account and pays', () => {
  const blocks = sectionBlocks('Coming back');
  // biome-ignore lint/suspicious/noExplicitAny: the README's answers are read freely
  let answers: any[][] = [];

  beforeAll(async () => {
    // Its own bash, after the sections before it ran (it moves the clock a month): `newtenant`
    // is the Plan Changes section's, pasted first as the README says.
    const newtenant = /newtenant\(\) \{[\s\S]*?\n\}/.exec(sectionBlocks('Plan Changes')[0] ?? '')?.[0] ?? '';
    answers = await pasted(blocks, [newtenant]);
  }, 120_000);

  it('has the blocks it documents (leave and ask too early; a month later, the new account)', () => {
    expect(blocks).toHaveLength(2);
  });

  it('while the old account still serves: told from when, and asking earlier is refused (409 new_account_not_yet)', () => {
    const [me, early] = answers[0] ?? [];
    expect(me).toMatchObject({ slug: 'erin-co', billingState: 'decommissioning' });
    expect(me.newAccount).toMatchObject({ possible: false, possibleFrom: expect.any(String) });
    expect(me.newAccount.text).toContain('same sign-in');
    expect(early.error.code).toBe('new_account_not_yet');
    expect(early.newAccountFrom).toBe(me.newAccount.possibleFrom);
  });

  it("a month later: the same login starts a new account, pays today's price with no lock, and still reads the old invoices", () => {
    const [started, me, status, oldInvoices] = answers[1] ?? [];
    expect(started).toEqual({
      slug: 'erin-again',
      stackName: 'erin-again.stacks.localhost',
      newAccount: true,
    });
    expect(me).toMatchObject({ slug: 'erin-again', billingState: 'active', newAccount: null });
    expect(me.formerAccounts).toEqual([
      { slug: 'erin-co', leftBy: 'cancelled_in_portal', closedAt: expect.any(String) },
    ]);
    expect(status.billingState).toBe('active');
    expect(status.priceLock.founding).toBe(false);
    expect(status.moneyBack.available).toBe(true);
    expect(oldInvoices.invoices.length).toBeGreaterThan(0);
    // Tenant-facing text carries our words only: no processor ids.
    expect(JSON.stringify([me, status])).not.toMatch(/\b(cus|sub|in|acct)_[A-Za-z0-9]/);
  });
});

describe('the README "Through the typed client" section: its TypeScript, run as the README says', () => {
  const blocks = sectionBlocks('Through the typed client', 'ts');
  const cloud = localClient(() => server as Running);
  // biome-ignore lint/suspicious/noExplicitAny: the README's answers are read freely
  let answers: any[] = [];

  beforeAll(async () => {
    const port = new URL((server as Running).url).port;
    // `npx node client-walkthrough.ts` at the repository's root, as the README says; here in the
    // run's data folder (nothing written into the checkout), so the client's import names its file.
    const file = path.join(dataDirectory, 'client-walkthrough.mts');
    const source = (blocks[0] ?? '')
      .replaceAll('localhost:3000', `localhost:${port}`)
      .replace("'./lib/client/index.ts'", JSON.stringify(path.join(REPO, 'lib/client/index.ts')));
    writeFileSync(file, source);
    const { stdout } = await run(NODE, [file], { cwd: REPO, env: userEnvironment(), timeout: 60_000 });
    answers = jsonLines(stdout);
  }, 90_000);

  it('has the one block it documents, importing the client from lib/client', () => {
    expect(blocks).toHaveLength(1);
    expect(blocks[0]).toContain("from './lib/client/index.ts'");
  });

  it('lists the Plans, locks the slug and pays through the client: active', () => {
    const [plans, slug, status] = answers;
    expect(plans).toEqual({ plans: ['standard', 'plus', 'pro'] });
    expect(slug).toEqual({ slug: 'frank-co', stackName: 'frank-co.stacks.localhost' });
    expect(status).toEqual({ billingState: 'active' });
  });

  it('a refusal comes back as a Refusal: the code, the server’s words and the request id', async () => {
    const refused = answers[3];
    const { sessionToken } = await cloud.signIn('frank');
    const raw = await cloud.as(
      { login: 'frank', token: sessionToken, tenantId: '', email: '' },
      'POST',
      '/v1/tenant/slug',
      {
        slug: 'frank-again',
      },
    );
    expect(raw.status).toBe(409);
    expect(refused).toEqual({
      status: 409,
      code: raw.body.error.code,
      message: raw.body.error.message,
      requestId: expect.stringMatching(/\S/),
    });
    expect(refused.code).toBe('slug_locked');
  });
});

describe('paying without a browser: POST /_local/processor/checkout/{sessionId}/pay', () => {
  const cloud = localClient(() => server as Running);

  it('refuses bad input naming the field, a declined card changes nothing, a paid session is no longer open', async () => {
    const tenant = await cloud.newTenant('bob');
    const checkout = await cloud.as(tenant, 'POST', '/v1/billing/checkout', { plan: 'standard' });
    const sessionId = String(checkout.body.url).split('/').at(-1);
    const pay = (card: unknown, id = sessionId) =>
      cloud.call('POST', `/_local/processor/checkout/${id}/pay`, { body: { card } });

    const notACard = await pay('not a card');
    expect(notACard.status).toBe(400);
    expect(notACard.body.error.field).toBe('card');
    const failsLuhn = await pay('4242 4242 4242 4241');
    expect(failsLuhn.status).toBe(400);
    expect(failsLuhn.body.error.field).toBe('card');
    const missing = await cloud.call('POST', `/_local/processor/checkout/${sessionId}/pay`, { body: {} });
    expect(missing.status).toBe(400);
    expect(missing.body.error.field).toBe('card');
    const badId = await pay('4242 4242 4242 4242', 'nope');
    expect(badId.status).toBe(400);
    expect(badId.body.error.field).toBe('sessionId');
    const unknown = await pay('4242 4242 4242 4242', 'cs_test_unknown');
    expect(unknown.status).toBe(404);

    const declined = await pay('4000 0000 0000 0002');
    expect(declined.status).toBe(402);
    expect(declined.body.error.code).toBe('card_declined');
    await cloud.sweep();
    expect((await cloud.as(tenant, 'GET', '/v1/billing/status')).body.billingState).toBe('provisioning');

    expect((await pay('4242 4242 4242 4242')).body).toEqual({ paid: true });
    await cloud.sweep();
    expect((await cloud.as(tenant, 'GET', '/v1/billing/status')).body.billingState).toBe('active');
    const again = await pay('4242 4242 4242 4242');
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('checkout_session_inactive');
  });
});

describe('the sent mail across a restart', () => {
  it('is still served by GET /_local/mail after npm start is stopped and started again (without --fresh)', async () => {
    const before = await json(await fetch(`${(server as Running).url}/_local/mail`));
    expect(before.body.emails.length).toBeGreaterThan(0);
    expect(await stopLocalServer(server as Running)).toBe(0);
    expect(existsSync(path.join(dataDirectory, 'mail.json'))).toBe(true);

    server = await startLocalServer(dataDirectory);
    const after = await json(await fetch(`${server.url}/_local/mail`));
    expect(after.body.emails).toEqual(before.body.emails);
    const toAlice = await json(await fetch(`${server.url}/_local/mail?to=ALICE@users.code-host.test`));
    expect(toAlice.body.emails).toHaveLength(1);
    const toNobody = await json(await fetch(`${server.url}/_local/mail?to=nobody@users.code-host.test`));
    expect(toNobody.body.emails).toEqual([]);
    const bad = await json(await fetch(`${server.url}/_local/mail?to=alice`));
    expect(bad.status).toBe(400);
    expect(bad.body.error.field).toBe('to');
  }, 90_000);
});

describe('npm start when the port is taken', () => {
  let holder: Server;
  let port = 0;
  beforeAll(async () => {
    holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    port = (holder.address() as { port: number }).port;
  });
  afterAll(() => new Promise<void>((resolve) => holder.close(() => resolve())));

  const startOnTakenPort = (args: string[], env: Record<string, string> = {}) => {
    const missingFolder = path.join(newDataDirectory(), 'never-created');
    const result = spawnSync(NODE, ['lib/local/main.ts', '--data-dir', missingFolder, ...args], {
      cwd: REPO,
      env: { ...userEnvironment(), ...env },
      encoding: 'utf8',
      timeout: 60_000,
    });
    return { ...result, missingFolder };
  };

  it.each([
    ['--port', () => startOnTakenPort(['--port', String(port)])],
    ['PORT', () => startOnTakenPort([], { PORT: String(port) })],
  ])(
    '(%s) says which port and how to choose another in one line, exits 1, leaves no data folder',
    (_, start) => {
      const result = start();
      expect(result.status).toBe(1);
      const lines = result.stderr.trim().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toContain(`Port ${port} is already in use`);
      expect(lines[0]).toMatch(/--port \d+/);
      expect(lines[0]).toMatch(/PORT=\d+ npm start/);
      expect(result.stdout).toBe('');
      expect(existsSync(result.missingFolder)).toBe(false);
    },
  );
});
