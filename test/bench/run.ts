import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { REPO_ROOT } from '../../lib/constants.ts';
import { startControlPlane } from '../../lib/local/server.ts';
import { IMPORT_OVERHEAD_TARGET_MS, measureBundles, SIZE_TARGET_BYTES } from './bundles.ts';
import { printCost } from './cost.ts';
import { printDispatcherFigures } from './dispatcher.ts';
import { printExportFigures } from './export.ts';
import { printPlanChangeFigures } from './plan-change.ts';
import {
  IDLE_READS_TARGET,
  LATENCY_TARGET_P95_MS,
  measureCheckoutLatency,
  measureIdleSweep,
  measureReconcileRate,
} from './sweep.ts';

/** The last deep property run written to `.reports/<file>` (its report), or "not run". */
const deepRun = (what: string, file: string): string => {
  const report = path.join(REPO_ROOT, '.reports', file);
  if (!existsSync(report)) return `${what}: not run`;
  const { sequences, divergences, finishedAt } = JSON.parse(readFileSync(report, 'utf8')) as {
    sequences: number;
    divergences: number;
    finishedAt?: string;
  };
  return `${what}: ${sequences} sequences, ${divergences} divergences${finishedAt ? ` (${finishedAt})` : ''}`;
};

/** `npm run bench`: prints the figures the issues set targets for; exits 1 when a target is missed. */
const main = async () => {
  let missed = 0;
  const verdict = (ok: boolean) => {
    if (!ok) missed++;
    return ok ? 'meets target' : 'MISSES TARGET';
  };

  console.log(
    `Handler bundles (targets without the Stripe SDK: <= ${SIZE_TARGET_BYTES / 1000} KB, cold import <= ${IMPORT_OVERHEAD_TARGET_MS} ms over a baseline measured in the same run: the same AWS SDK imports, no code of ours)`,
  );
  console.log(
    `${'handler'.padEnd(36)} ${'size (KB)'.padStart(10)} ${'import (ms)'.padStart(12)} ${'baseline (ms)'.padStart(14)} ${'overhead (ms)'.padStart(14)}  verdict`,
  );
  for (const figure of await measureBundles()) {
    const text = figure.usesStripe ? 'n/a (Stripe SDK)' : verdict(figure.meetsTargets);
    console.log(
      `${figure.name.padEnd(36)} ${(figure.bytes / 1000).toFixed(1).padStart(10)} ${figure.importMs.toFixed(1).padStart(12)} ${figure.baselineMs.toFixed(1).padStart(14)} ${figure.overheadMs.toFixed(1).padStart(14)}  ${text}`,
    );
  }
  // `npm run test:deep` and `npm run test:deep:plan-changes`.
  console.log(deepRun('lifecycle deep run', 'lifecycle-deep.json'));
  console.log(deepRun('plan-change deep run', 'plan-change-deep.json'));
  await printPlanChangeFigures(verdict);

  process.env.POWERTOOLS_LOG_LEVEL = 'ERROR';
  const plane = await startControlPlane({
    port: 0,
    dataDirectory: mkdtempSync(path.join(tmpdir(), 'scp-bench-')),
    fresh: true,
    sweepEverySeconds: 3600,
  });
  try {
    const latency = await measureCheckoutLatency(plane, 20);
    console.log(
      `\nCheckout completed -> active (local, ${latency.samples} tenants after ${latency.warmUp} warm-up ones, intake nudges the sweep): p50 ${latency.p50.toFixed(0)} ms, p95 ${latency.p95.toFixed(0)} ms (target p95 <= ${LATENCY_TARGET_P95_MS} ms)  ${verdict(latency.p95 <= LATENCY_TARGET_P95_MS)}`,
    );
    const idle = await measureIdleSweep(plane, 10_000);
    console.log(
      `Idle sweep over ${idle.tenants.toLocaleString('en')} tenants: ${idle.itemsRead} items read, ${idle.reconciled} reconciled, ${idle.durationMs} ms (target <= ${IDLE_READS_TARGET} items)  ${verdict(idle.itemsRead <= IDLE_READS_TARGET)}`,
    );
    await printDispatcherFigures(plane);
    await printExportFigures(plane, verdict);
    const rate = await measureReconcileRate(plane, 1000);
    console.log(
      `Reconcile rate with ${rate.due} paid tenants due (against the emulator; their first payment looked up too): ${rate.reconciled} reconciled in ${rate.seconds.toFixed(1)} s = ${rate.perSecond.toFixed(0)} tenants/s, ${(rate.processorCalls / Math.max(1, rate.reconciled)).toFixed(2)} processor calls each`,
    );
    // The daily re-check: every active tenant is reconciled once a day, event or not.
    const perTenantCalls = rate.recheckCalls / Math.max(1, rate.rechecked);
    console.log(
      `Daily re-check per 10,000 tenants (the same ${rate.rechecked} tenants, active, due again): ${Math.round(10_000 * perTenantCalls).toLocaleString('en')} processor calls a day (${perTenantCalls.toFixed(2)} per tenant, target 1; ${((10_000 * perTenantCalls) / 86_400).toFixed(2)} calls/s on average, ${((100 * (10_000 * perTenantCalls)) / 86_400 / rate.limitPerSecond).toFixed(2)}% of the ${rate.limitPerSecond}/s limit), ${(10_000 / rate.recheckPerSecond / 60).toFixed(1)} sweep-minutes a day at the measured rate  ${verdict(perTenantCalls <= 1)}`,
    );
    await printCost(plane, verdict);
  } finally {
    await plane.stop();
  }

  if (missed > 0) {
    console.log(`\n${missed} figure(s) miss their target.`);
    process.exit(1);
  }
  console.log('\nAll figures meet their targets.');
};

await main();
