import { execFileSync } from 'node:child_process';
import { createWriteStream, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getExport } from '#store/exports.ts';
import { getStack } from '#store/stacks.ts';
import { gatewayForFile } from '../support/file-gateway.ts';
import type { TestControlPlane } from '../support/gateway.ts';
import { cancelInPortal } from '../support/hosted-pages.ts';

/**
 * Export archives end to end (docs/exports.md): an administrator starts an export, the reference
 * Dispatcher (a real SQLite journal, real git repositories per Thread) builds the tar and uploads
 * it in parts to the S3 stand-in through presigned URLs, the control plane completes the upload,
 * and the download goes through the local stand-in of the console's CloudFront route. The
 * downloaded file is checked with `tar -tvf`, SQLite's integrity check and `git bundle verify`.
 */

const { api } = gatewayForFile({ processor: true });
let work: string;
beforeAll(() => {
  // The console's download route is this test's own API listener.
  process.env.EXPORTS_DOWNLOAD_BASE_URL = `${api.apiUrl}/_local`;
  work = mkdtempSync(path.join(tmpdir(), 'exports-test-'));
});
afterAll(() => {
  api.fleet.removeTemporaryData();
  rmSync(work, { recursive: true, force: true });
});

const tick = () => api.call('POST', '/_local/fleet/tick');

/** Every tenant-facing answer of this file, to look for storage details in. */
const tenantBodies: string[] = [];
const asTenant = async (...args: Parameters<TestControlPlane['call']>) => {
  const response = await api.call(...args);
  tenantBodies.push(JSON.stringify({ body: response.json ?? null, headers: response.headers }));
  return response;
};

const THREADS = [
  { threadId: 't-alpha', projectId: 'prj_one', issue: 'acme/app#12', shipped: 2, unshipped: 3 },
  { threadId: 't-beta', projectId: 'prj_one', issue: 'acme/app#13', shipped: 0, unshipped: 2 },
  // Everything shipped: no bundle for it.
  { threadId: 't-gamma', projectId: 'prj_two', issue: 'acme/lib#4', shipped: 3, unshipped: 0 },
];

/** A paying tenant whose Stack `primary` runs the reference Dispatcher, with seeded data. */
const stackWithData = async () => {
  const tenant = await api.subscribe({ plan: 'plus' });
  const issued = await api.call('POST', '/v1/stacks/primary/dispatcher-credential', {
    token: tenant.sessionToken,
  });
  const started = await api.call('POST', '/_local/fleet/dispatchers', {
    body: { credential: issued.json.credential },
  });
  expect(started.status).toBe(201);
  const dispatcherId = started.json.dispatcherId as string;
  const seeded = await api.call('POST', `/_local/fleet/dispatchers/${dispatcherId}/data`, {
    body: { events: 40, threads: THREADS },
  });
  expect(seeded.status).toBe(200);
  expect(seeded.json).toEqual({ events: 40 + THREADS.length, threads: THREADS.length });
  const dispatcher = api.fleet.get(dispatcherId);
  if (!dispatcher) throw new Error('no dispatcher');
  return { tenant, dispatcherId, dispatcher };
};

/** Starts an export, lets the Dispatcher build it, answers its ready status. */
const exportReady = async (
  token: string,
  dispatcher: NonNullable<ReturnType<TestControlPlane['fleet']['get']>>,
  beforeBuild: () => void = () => undefined,
) => {
  const started = await asTenant('POST', '/v1/stacks/primary/exports', { token });
  expect(started.status).toBe(202);
  expect(started.json).toMatchObject({
    stackId: 'primary',
    status: 'requested',
    readyAt: null,
    sizeBytes: null,
  });
  const exportId = started.json.exportId as string;
  beforeBuild();
  await tick();
  await dispatcher.exportDone(exportId);
  const status = await asTenant('GET', `/v1/stacks/primary/exports/${exportId}`, { token });
  expect(status.status).toBe(200);
  expect(status.json).toMatchObject({ exportId, status: 'ready' });
  return { exportId, status: status.json };
};

/** Downloads over the caller's session: the signed URL, fetched to a file. */
const download = async (token: string, exportId: string) => {
  const answer = await asTenant('POST', `/v1/stacks/primary/exports/${exportId}/download`, { token });
  expect(answer.status).toBe(200);
  const file = path.join(work, `${exportId}.tar`);
  const response = await fetch(answer.json.url);
  expect(response.status).toBe(200);
  if (!response.body) throw new Error('no body');
  await pipeline(Readable.fromWeb(response.body), createWriteStream(file));
  return { answer: answer.json, file };
};

const run = (cwd: string, command: string, ...args: string[]) =>
  execFileSync(command, args, {
    cwd,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null' },
  }).trim();

describe('an export archive', () => {
  let fixture: Awaited<ReturnType<typeof stackWithData>>;
  let exportId: string;
  let file: string;
  let extracted: string;
  let ready: Awaited<ReturnType<typeof exportReady>>;
  /** The clock when the Dispatcher was let to build (a minute after the request) and once it was done. */
  let buildFrom: Date;
  let builtBy: Date;
  let manifest: {
    format: string;
    exportId: string;
    stack: string;
    why: string;
    requestedAt: string;
    generatedAt: string;
    entries: string[];
    journal: { sizeBytes: number; events: number };
    threads: {
      threadId: string;
      projectId: string;
      issue: string;
      sizeBytes: number;
      unshippedCommits: number;
      bundle: string;
    }[];
  };

  beforeAll(async () => {
    fixture = await stackWithData();
    // A minute passes between the request and the build: the manifest says when each happened.
    ready = await exportReady(fixture.tenant.sessionToken, fixture.dispatcher, () => {
      buildFrom = api.clock.advance(60);
    });
    builtBy = api.clock.now();
    exportId = ready.exportId;
    ({ file } = await download(fixture.tenant.sessionToken, exportId));
    expect(readFileSync(file).length).toBe(ready.status.sizeBytes);
    extracted = path.join(work, `${exportId}-x`);
    execFileSync('mkdir', ['-p', extracted]);
    run(extracted, 'tar', '-xf', file);
    manifest = JSON.parse(readFileSync(path.join(extracted, 'manifest.json'), 'utf8'));
  }, 120_000);

  it('passes tar -tvf with its entries in order: manifest.json, journal.db, one bundle per Thread with unshipped work', () => {
    const listing = run(work, 'tar', '-tvf', file).split('\n');
    const names = listing.map((line) => line.trim().split(/\s+/).at(-1));
    expect(names).toEqual(['manifest.json', 'journal.db', 'bundles/t-alpha.bundle', 'bundles/t-beta.bundle']);
    expect(manifest.entries).toEqual(names);
  });

  it('carries a raw journal.db that passes PRAGMA integrity_check, with every event', () => {
    const journal = new DatabaseSync(path.join(extracted, 'journal.db'), { readOnly: true });
    try {
      expect(journal.prepare('PRAGMA integrity_check').all()).toEqual([{ integrity_check: 'ok' }]);
      const { n } = journal.prepare('SELECT count(*) AS n FROM events').get() as { n: number };
      expect(n).toBe(40 + THREADS.length);
      expect(manifest.journal.events).toBe(n);
      expect(manifest.journal.sizeBytes).toBe(readFileSync(path.join(extracted, 'journal.db')).length);
    } finally {
      journal.close();
    }
  });

  it('has a manifest that says why the archive exists, and when it was asked for and made', async () => {
    const stack = await getStack(fixture.tenant.tenantId, 'primary');
    expect(manifest).toMatchObject({
      format: 'stack-export/1',
      exportId,
      stack: stack?.name,
      why: "An export of the Stack, requested by an administrator of the tenant: the Stack's append-only Event journal, and the commits of its Threads that never reached their remote.",
      requestedAt: ready.status.requestedAt,
    });
    // Made by the Dispatcher when it built the archive, on the control plane's clock: after the
    // request (a minute later), before the control plane recorded it ready.
    const generated = Date.parse(manifest.generatedAt);
    expect(new Date(generated).toISOString()).toBe(manifest.generatedAt);
    expect(generated).toBeGreaterThanOrEqual(buildFrom.getTime());
    expect(generated).toBeGreaterThanOrEqual(Date.parse(ready.status.requestedAt) + 60_000);
    expect(generated).toBeLessThanOrEqual(Math.min(builtBy.getTime(), Date.parse(ready.status.readyAt)));
  });

  it('has a manifest with one row per bundled Thread: id, Project, issue, size', () => {
    expect(manifest).toMatchObject({ format: 'stack-export/1', exportId });
    expect(
      manifest.threads.map(({ threadId, projectId, issue, unshippedCommits }) => ({
        threadId,
        projectId,
        issue,
        unshippedCommits,
      })),
    ).toEqual([
      { threadId: 't-alpha', projectId: 'prj_one', issue: 'acme/app#12', unshippedCommits: 3 },
      { threadId: 't-beta', projectId: 'prj_one', issue: 'acme/app#13', unshippedCommits: 2 },
    ]);
    for (const thread of manifest.threads)
      expect(thread.sizeBytes).toBe(readFileSync(path.join(extracted, thread.bundle)).length);
  });

  it('has bundles that pass git bundle verify and hold exactly the unshipped commits', async () => {
    const data = fixture.dispatcher.data();
    for (const thread of manifest.threads) {
      // A clone of what the remote has: the bundle's prerequisites, and nothing unshipped.
      const clone = path.join(work, `${exportId}-${thread.threadId}`);
      run(work, 'git', 'clone', '--quiet', path.join(data.root, 'remotes', `${thread.threadId}.git`), clone);
      const bundle = path.join(extracted, thread.bundle);
      run(clone, 'git', 'bundle', 'verify', '--quiet', bundle);
      const [head] = run(clone, 'git', 'bundle', 'list-heads', bundle).split(' ');
      run(clone, 'git', 'fetch', '--quiet', bundle, 'refs/heads/main:refs/exported/main');
      const remoteHas = run(clone, 'git', 'for-each-ref', '--format=%(refname)', 'refs/remotes/origin/main');
      const exported = run(
        clone,
        'git',
        'rev-list',
        'refs/exported/main',
        ...(remoteHas ? ['^refs/remotes/origin/main'] : []),
      )
        .split('\n')
        .filter(Boolean);
      const unshipped = await data.unshippedCommits(thread.threadId);
      expect(exported).toEqual(unshipped);
      expect(exported).toHaveLength(THREADS.find((t) => t.threadId === thread.threadId)?.unshipped ?? -1);
      expect(head).toBe(unshipped[0]);
    }
  });

  it('shows no bucket name, storage endpoint or object key to the tenant; the URL expires in 5 minutes', async () => {
    const stored = await getExport(fixture.tenant.tenantId, 'primary', exportId);
    if (!stored) throw new Error('no export');
    const bucket = process.env.EXPORTS_BUCKET ?? '';
    const s3 = process.env.AWS_ENDPOINT_URL_S3 ?? '';
    expect(bucket).not.toBe('');
    const answer = await asTenant('POST', `/v1/stacks/primary/exports/${exportId}/download`, {
      token: fixture.tenant.sessionToken,
    });
    const url = new URL(answer.json.url);
    // The only trace of the object is the signed URL's last segment: 256 random bits, nothing else.
    expect(`${url.origin}${url.pathname}`).toBe(`${api.apiUrl}/_local/${stored.objectKey}`);
    expect(stored.objectKey).toMatch(/^exports\/[A-Za-z0-9_-]{43}$/);
    expect(url.searchParams.get('Key-Pair-Id')).toBe(process.env.EXPORTS_SIGNING_KEY_PAIR_ID);
    expect(Date.parse(answer.json.expiresAt) - api.clock.now().getTime()).toBeLessThanOrEqual(300_000);
    for (const body of tenantBodies) {
      expect(body).not.toContain(bucket);
      expect(body).not.toContain(s3.replace('http://', ''));
      expect(body).not.toContain(stored.uploadId ?? 'no upload');
      expect(body).not.toContain(fixture.tenant.tenantId);
      const withoutUrls = body.replace(/"url":"[^"]*"/g, '"url":""');
      expect(withoutUrls).not.toContain(stored.objectKey);
    }
    // A tampered or expired URL is refused by the download route, as CloudFront would.
    const tampered = new URL(url);
    tampered.searchParams.set('Expires', String(Number(url.searchParams.get('Expires')) + 3600));
    expect((await fetch(tampered)).status).toBe(403);
    api.clock.advance(301);
    expect((await fetch(url)).status).toBe(403);
  });

  it('is for administrators: a member is refused (403) to start or download, and may read the status', async () => {
    const member = await api.call('POST', '/_local/members', {
      token: fixture.tenant.sessionToken,
      body: { login: `member-${Math.random().toString(36).slice(2, 8)}` },
    });
    const memberSession = await api.signIn(member.json.login);
    const start = await asTenant('POST', '/v1/stacks/primary/exports', { token: memberSession.sessionToken });
    expect(start.status).toBe(403);
    expect(start.json.error.code).toBe('admin_required');
    const fetchUrl = await asTenant('POST', `/v1/stacks/primary/exports/${exportId}/download`, {
      token: memberSession.sessionToken,
    });
    expect(fetchUrl.status).toBe(403);
    const status = await asTenant('GET', `/v1/stacks/primary/exports/${exportId}`, {
      token: memberSession.sessionToken,
    });
    expect(status.status).toBe(200);
    expect(status.json.status).toBe('ready');
  });
});

describe('export refusals and failures', () => {
  it('one export at a time; a failed build says why and cannot be downloaded; another Stack cannot touch it', async () => {
    const { tenant, dispatcher } = await stackWithData();
    dispatcher.exportFault = 'the disk is full';
    const started = await asTenant('POST', '/v1/stacks/primary/exports', { token: tenant.sessionToken });
    expect(started.status).toBe(202);
    const exportId = started.json.exportId as string;
    const second = await asTenant('POST', '/v1/stacks/primary/exports', { token: tenant.sessionToken });
    expect(second.status).toBe(409);
    expect(second.json).toMatchObject({ error: { code: 'export_in_progress' }, exportId });
    const early = await asTenant('POST', `/v1/stacks/primary/exports/${exportId}/download`, {
      token: tenant.sessionToken,
    });
    expect(early.status).toBe(409);
    expect(early.json.error.code).toBe('export_not_ready');

    // Another tenant's Dispatcher finds no such export.
    const other = await stackWithData();
    const otherCredential = (
      await api.call('POST', '/v1/stacks/primary/dispatcher-credential', { token: other.tenant.sessionToken })
    ).json.credential;
    const foreign = await api.call('POST', `/v1/dispatcher/exports/${exportId}/parts`, {
      token: otherCredential,
      body: { partNumbers: [1] },
    });
    expect(foreign.status).toBe(404);
    expect(foreign.json.error.code).toBe('export_not_found');

    await tick();
    await dispatcher.exportDone(exportId);
    const failed = await asTenant('GET', `/v1/stacks/primary/exports/${exportId}`, {
      token: tenant.sessionToken,
    });
    // Our reason; the Dispatcher's words stay with operators.
    expect(failed.json).toMatchObject({ status: 'failed', failureCode: 'build_failed' });
    expect(failed.json.failureReason).toContain('could not build the archive');
    expect(failed.json.failureReason).not.toContain('the disk is full');
    const refused = await asTenant('POST', `/v1/stacks/primary/exports/${exportId}/download`, {
      token: tenant.sessionToken,
    });
    expect(refused.status).toBe(409);
    expect(refused.json.error.code).toBe('export_failed');
    // The failed one has ended: a new export may start.
    const again = await asTenant('POST', '/v1/stacks/primary/exports', { token: tenant.sessionToken });
    expect(again.status).toBe(202);
    expect((await getStack(tenant.tenantId, 'primary'))?.runningExport?.exportId).toBe(again.json.exportId);
  });

  it('works while the tenant is decommissioning, until teardown; refused after it', async () => {
    const { tenant, dispatcher } = await stackWithData();
    await cancelInPortal(
      (await api.call('POST', '/v1/billing/portal', { token: tenant.sessionToken })).json.url,
    );
    await api.sweep();
    await tick();
    const stack = await getStack(tenant.tenantId, 'primary');
    expect(stack?.lifecycle).toBe('decommissioning');
    const { exportId } = await exportReady(tenant.sessionToken, dispatcher);
    const { file } = await download(tenant.sessionToken, exportId);
    expect(run(work, 'tar', '-tf', file).split('\n')[0]).toBe('manifest.json');

    // Past the teardown time the Dispatcher tears the Stack down and confirms it.
    api.clock.advance(
      Math.ceil((Date.parse(stack?.teardownAt ?? '') - api.clock.now().getTime()) / 1000) + 60,
    );
    await tick();
    expect((await getStack(tenant.tenantId, 'primary'))?.lifecycle).toBe('torn_down');
    // A month on, the administrator signs in again (sessions last 7 days).
    const { sessionToken } = await api.signIn(tenant.login);
    const start = await asTenant('POST', '/v1/stacks/primary/exports', { token: sessionToken });
    expect(start.status).toBe(409);
    expect(start.json.error.code).toBe('stack_torn_down');
    const gone = await asTenant('POST', `/v1/stacks/primary/exports/${exportId}/download`, {
      token: sessionToken,
    });
    expect(gone.status).toBe(409);
    expect(gone.json.error.code).toBe('stack_torn_down');
  });
});

describe('the export list of a Stack', () => {
  type Tenant = Awaited<ReturnType<TestControlPlane['subscribe']>>;
  const list = (token: string, stackId = 'primary') =>
    asTenant('GET', `/v1/stacks/${stackId}/exports`, { token });
  /** Starts an export of the tenant's `primary` and, with `fail`, lets its Dispatcher report it failed. */
  const exportOf = async (tenant: Tenant, dispatcherToken: string, fail: boolean) => {
    const started = await asTenant('POST', '/v1/stacks/primary/exports', { token: tenant.sessionToken });
    expect(started.status).toBe(202);
    const exportId = started.json.exportId as string;
    if (fail) {
      const reported = await api.call('POST', `/v1/dispatcher/exports/${exportId}/outcome`, {
        token: dispatcherToken,
        body: { outcome: 'failed', reason: `listed ${exportId}` },
      });
      expect(reported.status).toBe(200);
      expect(reported.json.status).toBe('failed');
    }
    api.clock.advance(60);
    return exportId;
  };

  it('lists a Stack’s exports newest first, each exactly as its status read shows it, to any member; none: an empty list', async () => {
    const tenant = await api.subscribe({ plan: 'plus' });
    const empty = await list(tenant.sessionToken);
    expect(empty.status).toBe(200);
    expect(empty.json).toEqual({ exports: [] });

    const dispatcher = (
      await api.call('POST', '/v1/stacks/primary/dispatcher-credential', { token: tenant.sessionToken })
    ).json.credential as string;
    const first = await exportOf(tenant, dispatcher, true);
    const second = await exportOf(tenant, dispatcher, true);
    const third = await exportOf(tenant, dispatcher, false);

    const listed = await list(tenant.sessionToken);
    expect(listed.status).toBe(200);
    expect(listed.json.exports.map((e: { exportId: string }) => e.exportId)).toEqual([third, second, first]);
    expect(listed.json.exports.map((e: { status: string }) => e.status)).toEqual([
      'requested',
      'failed',
      'failed',
    ]);
    for (const shown of listed.json.exports) {
      const single = await asTenant('GET', `/v1/stacks/primary/exports/${shown.exportId}`, {
        token: tenant.sessionToken,
      });
      expect(shown).toEqual(single.json);
      // No storage locator: the object key is never shown.
      const stored = await getExport(tenant.tenantId, 'primary', shown.exportId);
      expect(JSON.stringify(listed.json)).not.toContain(stored?.objectKey ?? 'no object key');
    }
    expect(JSON.stringify(listed.json)).not.toContain(process.env.EXPORTS_BUCKET ?? 'no bucket');

    const member = await api.call('POST', '/_local/members', {
      token: tenant.sessionToken,
      body: { login: `member-${Math.random().toString(36).slice(2, 8)}` },
    });
    const memberSession = await api.signIn(member.json.login);
    const asMember = await list(memberSession.sessionToken);
    expect(asMember.status).toBe(200);
    expect(asMember.json).toEqual(listed.json);

    expect((await api.call('GET', '/v1/stacks/primary/exports')).status).toBe(401);
  });

  it('shows the 20 newest at most', async () => {
    const tenant = await api.subscribe({ plan: 'plus' });
    const dispatcher = (
      await api.call('POST', '/v1/stacks/primary/dispatcher-credential', { token: tenant.sessionToken })
    ).json.credential as string;
    const started: string[] = [];
    for (let i = 0; i < 22; i += 1) started.push(await exportOf(tenant, dispatcher, true));
    const listed = await list(tenant.sessionToken);
    expect(listed.json.exports.map((e: { exportId: string }) => e.exportId)).toEqual(
      started.slice(-20).reverse(),
    );
  });

  it('is scoped to the Stack and the tenant: another Stack’s list is its own; another tenant’s Stack is 404 stack_not_found', async () => {
    const tenant = await api.subscribe({ plan: 'plus' });
    const dispatcher = (
      await api.call('POST', '/v1/stacks/primary/dispatcher-credential', { token: tenant.sessionToken })
    ).json.credential as string;
    const onPrimary = await exportOf(tenant, dispatcher, false);
    const added = await api.addStack(tenant, 'standard');
    const second = added.json.stackId as string;
    expect((await list(tenant.sessionToken, second)).json).toEqual({ exports: [] });
    const onSecond = await asTenant('POST', `/v1/stacks/${second}/exports`, { token: tenant.sessionToken });
    expect(onSecond.status).toBe(202);
    expect(
      (await list(tenant.sessionToken, second)).json.exports.map((e: { exportId: string }) => e.exportId),
    ).toEqual([onSecond.json.exportId]);
    expect(
      (await list(tenant.sessionToken)).json.exports.map((e: { exportId: string }) => e.exportId),
    ).toEqual([onPrimary]);

    // Another tenant (whose own first Stack is also `primary`) cannot reach the added Stack.
    const intruder = await api.subscribe({ plan: 'plus' });
    const refused = await list(intruder.sessionToken, second);
    expect(refused.status).toBe(404);
    expect(refused.json.error.code).toBe('stack_not_found');
    expect(JSON.stringify(refused.json)).not.toContain(onSecond.json.exportId);
    expect((await list(intruder.sessionToken)).json).toEqual({ exports: [] });
    expect((await list(tenant.sessionToken, 'no-such-stack')).status).toBe(404);
  });
});
