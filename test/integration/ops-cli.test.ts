import { randomUUID } from 'node:crypto';
import { ReceiveMessageCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { GetCommand, PutCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, describe, expect, it } from 'vitest';
import { listInventory, setCapacityTotal } from '#store/capacity.ts';
import { db, tableName } from '#store/client.ts';
import { keys } from '#store/keys.ts';
import { type PlanChange, planChangePut } from '#store/plan-changes.ts';
import { lockSlug, newTenantItem } from '#store/tenants.ts';
import { createProcessorQueues } from '../../lib/local/cloud.ts';
import { uniqueRegion } from '../support/gateway.ts';
import { opsDataFolder, runOps } from '../support/ops-cli.ts';

/**
 * `npm run ops` as an operator runs it: a separate process pointed at a local control plane's
 * data folder (its endpoints.json and clock.json), here one whose stand-ins are the test run's.
 */

const DAY_MS = 86_400_000;
const sqs = new SQSClient({});
afterAll(() => sqs.destroy());

/** A data folder whose control plane has the intake queues `queues` (by default new ones). */
const dataFolder = async (
  options: { offsetMs?: number; queues?: { events: string; deadLetters: string } } = {},
) => {
  const queues =
    options.queues ??
    (await createProcessorQueues(process.env.AWS_ENDPOINT_URL_SQS ?? '', `ops-${randomUUID().slice(0, 8)}`));
  return opsDataFolder({
    environment: { PROCESSOR_EVENTS_QUEUE_URL: queues.events, PROCESSOR_EVENTS_DLQ_URL: queues.deadLetters },
    ...(options.offsetMs === undefined ? {} : { offsetMs: options.offsetMs }),
  });
};
const ops = runOps;
/** The arguments of `capacity set` for one slot. */
const capacitySet = (region: string, location: string, plan: string, total: number, ...more: string[]) => [
  'capacity',
  'set',
  '--region',
  region,
  '--location',
  location,
  '--plan',
  plan,
  '--total',
  String(total),
  ...more,
];

const slotItem = async (region: string, location: string, plan: string) =>
  (await db().send(new GetCommand({ TableName: tableName(), Key: keys.capacity(region, location, plan) })))
    .Item as { total: number; updatedAt: string } | undefined;

/** A region whose one location (`-a`) has 2 Standard places, and a data folder. */
const regionWithOneLocation = async () => {
  const region = uniqueRegion();
  await setCapacityTotal({ region, location: `${region}-a`, plan: 'standard', total: 2 }, new Date());
  return { region, dataDir: await dataFolder() };
};

describe('npm run ops -- capacity set', () => {
  it('refuses a location the region does not have, naming the ones it has, and writes nothing', async () => {
    const { region, dataDir } = await regionWithOneLocation();
    const refused = await ops(capacitySet(region, `${region}-typo`, 'plus', 3, '--data-dir', dataDir));
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`Unknown location "${region}-typo"`);
    expect(refused.stderr).toContain(`${region}-a`);
    expect(refused.stderr).toContain('--create');
    expect((await listInventory(region)).slots.map((slot) => slot.location)).toEqual([`${region}-a`]);
  });

  it('refuses in a region without capacity too, unless --create', async () => {
    const region = uniqueRegion();
    const dataDir = await dataFolder();
    const args = capacitySet(region, `${region}-a`, 'pro', 1, '--data-dir', dataDir);
    const refused = await ops(args);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('no locations yet');
    expect(await slotItem(region, `${region}-a`, 'pro')).toBeUndefined();

    const created = await ops([...args, '--create']);
    expect(created.code).toBe(0);
    expect((await slotItem(region, `${region}-a`, 'pro'))?.total).toBe(1);
  });

  it('sets a known location without --create (another Plan of it included)', async () => {
    const { region, dataDir } = await regionWithOneLocation();
    const done = await ops(capacitySet(region, `${region}-a`, 'plus', 4, '--data-dir', dataDir));
    expect(done.code).toBe(0);
    expect((await slotItem(region, `${region}-a`, 'plus'))?.total).toBe(4);
  });

  it('uses the local control plane’s clock (its kept offset) when pointed at a local run', async () => {
    const region = uniqueRegion();
    const offsetMs = 400 * DAY_MS;
    const dataDir = await dataFolder({ offsetMs });
    const started = Date.now();
    const done = await ops(
      capacitySet(region, `${region}-a`, 'standard', 1, '--create', '--data-dir', dataDir),
    );
    expect(done.code).toBe(0);
    const updatedAt = Date.parse((await slotItem(region, `${region}-a`, 'standard'))?.updatedAt ?? '');
    expect(updatedAt).toBeGreaterThanOrEqual(started + offsetMs);
    expect(updatedAt).toBeLessThanOrEqual(Date.now() + offsetMs);
  });

  it('uses the wall clock against a deployed table (--table)', async () => {
    const region = uniqueRegion();
    const dataDir = await dataFolder({ offsetMs: 400 * DAY_MS });
    const started = Date.now();
    const environment = Object.fromEntries(
      Object.entries(process.env).filter(([name]) => name.startsWith('AWS_')),
    ) as Record<string, string>;
    const done = await ops(
      capacitySet(
        region,
        `${region}-a`,
        'standard',
        1,
        '--create',
        '--table',
        tableName(),
        '--data-dir',
        dataDir,
      ),
      environment,
    );
    expect(done.code).toBe(0);
    const updatedAt = Date.parse((await slotItem(region, `${region}-a`, 'standard'))?.updatedAt ?? '');
    expect(updatedAt).toBeGreaterThanOrEqual(started);
    expect(updatedAt).toBeLessThanOrEqual(Date.now());
  });
});

describe('npm run ops -- queue status', () => {
  it('counts waiting, in-flight and dead-lettered events apart on the local stand-in, as SQS would', async () => {
    const queues = await createProcessorQueues(
      process.env.AWS_ENDPOINT_URL_SQS ?? '',
      `ops-${randomUUID().slice(0, 8)}`,
    );
    for (let i = 0; i < 3; i++)
      await sqs.send(new SendMessageCommand({ QueueUrl: queues.events, MessageBody: `{"n":${i}}` }));
    for (let i = 0; i < 2; i++)
      await sqs.send(new SendMessageCommand({ QueueUrl: queues.deadLetters, MessageBody: `{"d":${i}}` }));
    // One event is being worked on (received, invisible for the 120 s visibility timeout).
    const { Messages } = await sqs.send(
      new ReceiveMessageCommand({ QueueUrl: queues.events, MaxNumberOfMessages: 1, WaitTimeSeconds: 0 }),
    );
    expect(Messages).toHaveLength(1);

    const status = await ops(['queue', 'status', '--data-dir', await dataFolder({ queues })]);
    expect(status.code).toBe(0);
    expect(status.stdout).toContain('Processor events waiting: 2\n');
    expect(status.stdout).toContain('In flight (received, not yet done): 1\n');
    expect(status.stdout).toContain('In the dead-letter queue: 2 ');
  });
});

describe('npm run ops -- plan-change show', () => {
  it("shows the tenant's view (our reason code and text) and, apart, the Dispatcher's words only operators may read", async () => {
    const tenantId = `t-ops-${randomUUID().slice(0, 8)}`;
    const slug = `ops-${randomUUID().slice(0, 8)}`;
    const now = new Date();
    await db().send(new PutCommand({ TableName: tableName(), Item: newTenantItem(tenantId, now) }));
    expect(await lockSlug(tenantId, slug, now)).toBe(true);
    const words =
      'disk full at s3://acme-backups-prod/x by ops-oncall-7 via arn:aws:iam::123456789012:role/x';
    const at = now.toISOString();
    const change: PlanChange = {
      changeId: 'pc_opsshow1',
      tenantId,
      stackId: 'primary',
      fromPlan: 'plus',
      toPlan: 'pro',
      status: 'rolled_back',
      step: 'done',
      confirmedAt: at,
      expiresAt: at,
      updatedAt: at,
      requestedBy: 'u-admin',
      region: 'eu',
      fromLocation: 'eu-a',
      targetLocation: 'eu-a',
      history: [
        { status: 'waiting_for_work', at },
        { status: 'preparing', at },
        { status: 'rolled_back', at },
      ],
      estimate: null,
      stepStartedAt: at,
      reasonCode: 'backup_failed',
      dispatcherReason: words,
      commitAttempts: 0,
      version: 3,
    };
    await db().send(new TransactWriteCommand({ TransactItems: [planChangePut(change)] }));

    const shown = await ops([
      'plan-change',
      'show',
      'pc_opsshow1',
      '--slug',
      slug,
      '--data-dir',
      await dataFolder(),
    ]);
    expect(shown.stderr).toBe('');
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain(
      `Plan Change pc_opsshow1 of ${slug} (${tenantId}), Stack primary: plus to pro`,
    );
    expect(shown.stdout).toContain(
      'The tenant is told: backup_failed: The final backup before the move failed.',
    );
    expect(shown.stdout).toContain(
      `Operator detail (never shown to the tenant):\n  Dispatcher's words: ${words}\n`,
    );

    const unknown = await ops([
      'plan-change',
      'show',
      'pc_nothere',
      '--slug',
      slug,
      '--data-dir',
      await dataFolder(),
    ]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('Refused (plan_change_not_found)');
    const noSlug = await ops(['plan-change', 'show', 'pc_opsshow1', '--data-dir', await dataFolder()]);
    expect(noSlug.code).toBe(2);
    expect(noSlug.stderr).toContain('--slug is required');
  });
});
