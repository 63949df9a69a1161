import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { FleetSimulator } from '../../lib/local/fleet.ts';
import type { RunningControlPlane } from '../../lib/local/server.ts';
import { sendJson } from '../support/http-json.ts';

/**
 * The export archive's cost on the Stack's side (docs/exports.md): a Stack with a big journal and
 * 100 Thread bundles; the reference Dispatcher stages, packs and uploads the archive to the S3
 * stand-in through the control plane's presigned part URLs, and the control plane completes it.
 * Peak memory is the process's resident set (the control plane, the S3 stand-in and the
 * Dispatcher all run in it) above what it was when the export started, sampled every 10 ms. It must
 * stay flat as the journal grows: the archive is streamed, never held.
 */

const MiB = 1024 * 1024;
const GiB = 1024 * MiB;
/** The journal sizes measured; the last is the issue's 1 GB. */
export const JOURNAL_SIZES = [256 * MiB, 1 * GiB];
export const THREADS = 100;
/** Flat: the peak above the start at 1 GB may exceed the one at 256 MB by at most this much. */
export const FLATNESS_TARGET_BYTES = 64 * MiB;

const json = async (
  plane: RunningControlPlane,
  method: string,
  url: string,
  body?: unknown,
  token?: string,
) => {
  const { status, text } = await sendJson(`${plane.url}${url}`, method, { body, token });
  return { status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
};

/** A paying tenant with its first Stack, through the public API; its session and Dispatcher credential. */
const payingStack = async (plane: RunningControlPlane) => {
  const login = `bench-export-${Date.now()}`;
  const { body: session } = await json(plane, 'POST', '/_local/sign-in', { login });
  const token = String(session.sessionToken);
  await json(plane, 'POST', '/v1/tenant/slug', { slug: login }, token);
  const checkout = await json(plane, 'POST', '/v1/billing/checkout', { plan: 'standard' }, token);
  if (checkout.status !== 200) throw new Error(`checkout answered ${checkout.status}`);
  const sessionId = new URL(String(checkout.body.url)).pathname.split('/').at(-1) ?? '';
  await json(plane, 'POST', `/_local/processor/checkout/${sessionId}/pay`, { card: '4242 4242 4242 4242' });
  await plane.sweeper.runNow();
  const issued = await json(plane, 'POST', '/v1/stacks/primary/dispatcher-credential', undefined, token);
  if (issued.status !== 201) throw new Error(`no credential: ${issued.status}`);
  return { token, credential: String(issued.body.credential) };
};

export interface ExportFigure {
  journalBytes: number;
  archiveBytes: number;
  bundles: number;
  /** Parts uploaded. */
  parts: number;
  seconds: number;
  /** Resident set at the start of the export, and its highest point during it. */
  rssAtStart: number;
  peakRss: number;
}

/** Builds one export end to end and measures it. */
const measureExport = async (
  plane: RunningControlPlane,
  fleet: FleetSimulator,
  dispatcherId: string,
  token: string,
): Promise<ExportFigure> => {
  const dispatcher = fleet.get(dispatcherId);
  if (!dispatcher) throw new Error('no dispatcher');
  global.gc?.();
  const rssAtStart = process.memoryUsage.rss();
  let peakRss = rssAtStart;
  const sampler = setInterval(() => {
    peakRss = Math.max(peakRss, process.memoryUsage.rss());
  }, 10);
  const started = performance.now();
  try {
    const start = await json(plane, 'POST', '/v1/stacks/primary/exports', undefined, token);
    if (start.status !== 202)
      throw new Error(`export answered ${start.status}: ${JSON.stringify(start.body)}`);
    const exportId = String(start.body.exportId);
    await fleet.tick();
    await dispatcher.exportDone(exportId);
    const seconds = (performance.now() - started) / 1000;
    const status = await json(plane, 'GET', `/v1/stacks/primary/exports/${exportId}`, undefined, token);
    if (status.body.status !== 'ready') throw new Error(`export ${exportId}: ${JSON.stringify(status.body)}`);
    const work = dispatcher.status().exports.find((entry) => entry.id === exportId);
    return {
      journalBytes: dispatcher.data().journalBytes(),
      archiveBytes: Number(status.body.sizeBytes),
      bundles: dispatcher.data().threads().length,
      seconds,
      rssAtStart,
      peakRss: Math.max(peakRss, process.memoryUsage.rss()),
      parts: work?.parts ?? 0,
    };
  } finally {
    clearInterval(sampler);
  }
};

/** Seeds `count` Threads, a few at a time: one shipped commit and two unshipped ones each. */
const seedThreads = async (fleet: FleetSimulator, dispatcherId: string, count: number) => {
  const dispatcher = fleet.get(dispatcherId);
  if (!dispatcher) throw new Error('no dispatcher');
  const data = dispatcher.data();
  const at = new Date();
  const seeds = Array.from({ length: count }, (_, i) => ({
    threadId: `t-${String(i + 1).padStart(3, '0')}`,
    projectId: `prj_bench${i % 5}`,
    issue: `bench/app#${i + 1}`,
    shipped: 1,
    unshipped: 2,
  }));
  for (let i = 0; i < seeds.length; i += 4)
    await Promise.all(seeds.slice(i, i + 4).map((seed) => data.addThread(seed, at)));
};

const mb = (bytes: number) => `${(bytes / MiB).toFixed(0)} MiB`;

export const printExportFigures = async (
  plane: RunningControlPlane,
  verdict: (ok: boolean) => string,
): Promise<void> => {
  const dataDirectory = mkdtempSync(path.join(tmpdir(), 'scp-bench-stacks-'));
  const fleet = new FleetSimulator(
    () => plane.url,
    () => plane.clock.now(),
    { dataDirectory },
  );
  try {
    const { token, credential } = await payingStack(plane);
    const { dispatcherId } = await fleet.start(credential);
    const seedStarted = performance.now();
    await seedThreads(fleet, dispatcherId, THREADS);
    const dispatcher = fleet.get(dispatcherId);
    if (!dispatcher) throw new Error('no dispatcher');
    // A first export warms the process up (JIT, pools, the S3 client) and is not counted.
    await measureExport(plane, fleet, dispatcherId, token);
    const figures: ExportFigure[] = [];
    for (const size of JOURNAL_SIZES) {
      dispatcher.data().growTo(size, plane.clock.now());
      figures.push(await measureExport(plane, fleet, dispatcherId, token));
    }
    console.log(
      `\nExport archive (a Stack with ${THREADS} Thread bundles; staged, packed and uploaded in 8 MiB parts to the S3 stand-in, completed by the control plane; seeding took ${((performance.now() - seedStarted) / 1000).toFixed(0)} s):`,
    );
    for (const figure of figures)
      console.log(
        `  journal ${mb(figure.journalBytes).padStart(9)}: archive ${mb(figure.archiveBytes).padStart(9)} in ${figure.parts} parts, ${figure.bundles} bundles, ${figure.seconds.toFixed(1)} s (${(figure.archiveBytes / MiB / figure.seconds).toFixed(0)} MiB/s), peak RSS ${mb(figure.peakRss)} (${mb(figure.peakRss - figure.rssAtStart)} above the start)`,
      );
    const first = figures[0];
    const last = figures.at(-1);
    if (first && last) {
      const growth = last.peakRss - last.rssAtStart - (first.peakRss - first.rssAtStart);
      console.log(
        `  peak memory from ${mb(first.journalBytes)} to ${mb(last.journalBytes)} of journal: ${growth >= 0 ? '+' : ''}${mb(growth)} (target: flat, within ${mb(FLATNESS_TARGET_BYTES)})  ${verdict(growth <= FLATNESS_TARGET_BYTES)}`,
      );
    }
  } finally {
    fleet.stop();
    rmSync(dataDirectory, { recursive: true, force: true });
  }
};
