import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  type AttributeValue,
  BatchWriteItemCommand,
  CreateTableCommand,
  DynamoDBClient,
  ScanCommand,
  UpdateTimeToLiveCommand,
} from '@aws-sdk/client-dynamodb';
import { listInventory, setCapacityTotal } from '../../functions/store/capacity.ts';
import { TABLE_DEFINITION } from '../../functions/store/table.ts';
import { LOCAL_REGION } from '../../lib/local/cloud.ts';
import { createTableInput, localCredentials } from '../../lib/local/dynamodb.ts';
import { type RunningControlPlane, startControlPlane } from '../../lib/local/server.ts';
import { checkInvariants } from './chaos.ts';
import { cancelInPortal, TEST_CARDS } from './hosted-pages.ts';
import { jsonOf, sendJson } from './http-json.ts';

/**
 * The runbook's point-in-time restore, rehearsed on `npm start`'s parts in this process (issue 37,
 * item 5): tenants go through the money path; the table is copied mid-day (scanned into a new
 * table, as a PITR restore makes a new table); the day goes on (more checkouts, a cancel at the
 * portal, a renewal, the cancelled tenant's teardown); then the control plane is pointed at the
 * copy and the next sweeps run. The invariants are checked, and what was lost between the copy and
 * now is said: what the sweeps re-derived from the processor, and what only an operator can act on.
 */

export interface DrillOptions {
  /** Tenants through the money path before the copy (at least 3). */
  before?: number;
  /** Tenants who check out after the copy (lost from it). */
  after?: number;
  log?: (line: string) => void;
}

export interface DrillResult {
  /** Tenants whose processor subscription the copy does not know: for the operator. */
  missing: { tenantId: string; login: string; status: string }[];
  /** Tenants of the copy whose state the sweeps re-derived from the processor: `login: from → to`. */
  rederived: string[];
  /** Emails sent again after the restore (their outbox record was lost with the copy). */
  resent: string[];
  violations: string[];
  line: string;
}

interface Tenant {
  login: string;
  token: string;
  tenantId: string;
}

const DAY = 86_400;

/** Copies every item of `from` into a new table `to` (THE table definition), as a restore would. */
export const copyTable = async (endpoint: string, from: string, to: string): Promise<number> => {
  const client = new DynamoDBClient({ endpoint, region: LOCAL_REGION, credentials: localCredentials });
  try {
    await client.send(new CreateTableCommand(createTableInput(to)));
    await client.send(
      new UpdateTimeToLiveCommand({
        TableName: to,
        TimeToLiveSpecification: { AttributeName: TABLE_DEFINITION.timeToLiveAttribute, Enabled: true },
      }),
    );
    let copied = 0;
    let start: Record<string, AttributeValue> | undefined;
    do {
      const page = await client.send(new ScanCommand({ TableName: from, ExclusiveStartKey: start }));
      const items = page.Items ?? [];
      for (let i = 0; i < items.length; i += 25) {
        let requests = { [to]: items.slice(i, i + 25).map((Item) => ({ PutRequest: { Item } })) };
        while ((requests[to]?.length ?? 0) > 0) {
          const written = await client.send(new BatchWriteItemCommand({ RequestItems: requests }));
          requests = { [to]: (written.UnprocessedItems?.[to] ?? []) as (typeof requests)[string] };
        }
      }
      copied += items.length;
      start = page.LastEvaluatedKey;
    } while (start);
    return copied;
  } finally {
    client.destroy();
  }
};

export const runRestoreDrill = async (options: DrillOptions = {}): Promise<DrillResult> => {
  const log = options.log ?? (() => undefined);
  const before = Math.max(3, options.before ?? 4);
  const after = options.after ?? 2;
  const dataDirectory = mkdtempSync(path.join(tmpdir(), 'scp-restore-drill-'));
  const plane: RunningControlPlane = await startControlPlane({
    port: 0,
    dataDirectory,
    fresh: true,
    sweepMode: 'manual',
  });
  const original = process.env.TABLE_NAME ?? '';
  try {
    const call = async (method: string, urlPath: string, body?: unknown, token?: string) => {
      const { status, text } = await sendJson(`${plane.url}${urlPath}`, method, { body, token });
      return { status, body: jsonOf(text, text) };
    };
    /** As the tenant, signing in again when the session is unknown (the copy has no later sessions). */
    const as = async (tenant: Tenant, method: string, urlPath: string, body?: unknown) => {
      const answer = await call(method, urlPath, body, tenant.token);
      if (answer.status !== 401) return answer;
      tenant.token = (await call('POST', '/_local/sign-in', { login: tenant.login })).body.sessionToken;
      return call(method, urlPath, body, tenant.token);
    };
    const sweep = () => call('POST', '/_local/sweep');
    // biome-ignore lint/suspicious/noExplicitAny: the API's JSON, read freely
    const must = (what: string, answer: { status: number; body: any }, ...ok: number[]) => {
      if (!ok.includes(answer.status))
        throw new Error(`${what}: ${answer.status} ${JSON.stringify(answer.body).slice(0, 300)}`);
      return answer;
    };
    const stateOf = async (tenant: Tenant) =>
      (await as(tenant, 'GET', '/v1/billing/status')).body?.billingState as string | undefined;
    const sweptUntil = async (tenant: Tenant, state: string) => {
      for (let round = 0; round < 40; round++) {
        if ((await stateOf(tenant)) === state) return;
        await sweep();
      }
      throw new Error(`${tenant.login} never became ${state}`);
    };
    const payingTenant = async (login: string): Promise<Tenant> => {
      const signed = must('sign in', await call('POST', '/_local/sign-in', { login }), 200).body;
      const tenant = { login, token: signed.sessionToken, tenantId: signed.tenantId };
      must('slug', await as(tenant, 'POST', '/v1/tenant/slug', { slug: login }), 200);
      const checkout = must(
        'checkout',
        await as(tenant, 'POST', '/v1/billing/checkout', { plan: 'plus' }),
        200,
      );
      const sessionId = new URL(checkout.body.url).pathname.split('/').at(-1);
      must(
        'pay',
        await call('POST', `/_local/processor/checkout/${sessionId}/pay`, { card: TEST_CARDS.succeeds }),
        200,
      );
      await sweptUntil(tenant, 'active');
      return tenant;
    };

    for (const slot of (await listInventory('eu')).slots)
      await setCapacityTotal(
        { region: 'eu', location: slot.location, plan: slot.plan, total: slot.total + 2 * (before + after) },
        plane.clock.now(),
      );
    const tenants: Tenant[] = [];
    for (let i = 0; i < before; i++) tenants.push(await payingTenant(`drill-${i}`));
    log(`restore drill: ${before} tenants paying`);

    // Mid-day: the copy (PITR restores into a new table; the stage is then pointed at it).
    const copy = `${original}-restored`;
    const copied = await copyTable(plane.cloud.endpoints.dynamodb, original, copy);
    const copiedStates = new Map<string, string | undefined>();
    for (const tenant of tenants) copiedStates.set(tenant.login, await stateOf(tenant));
    await plane.mail.sync();
    const mailAtCopy = plane.mail.list().length;
    log(`restore drill: table copied (${copied} items)`);

    // The day goes on: more checkouts, a cancel at the portal, a renewal, the teardown it brings.
    const later: Tenant[] = [];
    for (let i = 0; i < after; i++) later.push(await payingTenant(`drill-late-${i}`));
    const leaving = tenants[1] as Tenant;
    const portal = must('portal', await as(leaving, 'POST', '/v1/billing/portal'), 200, 201);
    await cancelInPortal(portal.body.url);
    await sweep();
    must('advance', await call('POST', '/_local/clock/advance', { seconds: 32 * DAY }), 200);
    for (let round = 0; round < 5; round++) await sweep();
    const statesNow = new Map<string, string | undefined>();
    for (const tenant of [...tenants, ...later]) statesNow.set(tenant.login, await stateOf(tenant));
    await plane.mail.sync();
    const mailBeforeRestore = plane.mail.list();
    log(
      `restore drill: day went on (${after} more checkouts, ${leaving.login} cancelled at the portal, renewals, a teardown)`,
    );

    // The restore: the control plane on the copy, then the next sweeps.
    process.env.TABLE_NAME = copy;
    for (let round = 0; round < 8; round++) {
      await sweep();
      await call('POST', '/_local/fleet/tick');
    }

    const known = new Set(tenants.map((tenant) => tenant.tenantId));
    const missing = Object.values(plane.processor.state.subscriptions)
      .filter((subscription) => !known.has(String(subscription.metadata.tenantId)))
      .map((subscription) => ({
        tenantId: String(subscription.metadata.tenantId),
        login: later.find((tenant) => tenant.tenantId === subscription.metadata.tenantId)?.login ?? '?',
        status: subscription.status,
      }));
    const rederived: string[] = [];
    for (const tenant of tenants) {
      const restored = await stateOf(tenant);
      const atCopy = copiedStates.get(tenant.login);
      if (restored !== atCopy) rederived.push(`${tenant.login}: ${atCopy} → ${restored}`);
      if (restored !== statesNow.get(tenant.login))
        rederived.push(`${tenant.login}: differs from before the restore (${statesNow.get(tenant.login)})`);
    }
    await plane.mail.sync();
    const sentBefore = new Set(mailBeforeRestore.map((mail) => `${mail.to}|${mail.subject}|${mail.text}`));
    const resent = plane.mail
      .list()
      .slice(mailBeforeRestore.length)
      .filter((mail) => sentBefore.has(`${mail.to}|${mail.subject}|${mail.text}`))
      .map((mail) => `${mail.to}: ${mail.subject}`);
    const violations = await checkInvariants(
      { processor: plane.processor.state, mail: plane.mail.list() },
      tenants,
      as,
    );
    // Across every tenant, known to the copy or not: one live subscription each at the processor.
    const live = new Map<string, number>();
    for (const subscription of Object.values(plane.processor.state.subscriptions))
      if (['active', 'trialing', 'past_due', 'unpaid', 'incomplete'].includes(subscription.status)) {
        const key = String(subscription.metadata.tenantId);
        live.set(key, (live.get(key) ?? 0) + 1);
      }
    for (const [tenantId, count] of live)
      if (count > 1) violations.push(`tenant ${tenantId}: ${count} live subscriptions`);
    for (const line of missing)
      log(
        `  missing from the copy: tenant ${line.tenantId} (${line.login}), processor subscription ${line.status}: the operator's to settle`,
      );
    for (const line of rederived) log(`  re-derived by the sweep: ${line}`);
    for (const line of resent) log(`  sent again after the restore: ${line}`);
    for (const line of violations) log(`  violation: ${line}`);
    log(`  mail: ${mailAtCopy} emails at the copy, ${mailBeforeRestore.length} before the restore`);
    const line = `restore drill: ${tenants.length + later.length} tenants, ${missing.length} missing from the copy, ${rederived.length} re-derived, ${resent.length} emails sent again, ${violations.length} violations`;
    log(line);
    return { missing, rederived, resent, violations, line };
  } finally {
    process.env.TABLE_NAME = original;
    await plane.stop();
    rmSync(dataDirectory, { recursive: true, force: true });
  }
};
