import { parseArgs } from 'node:util';

// The handlers' request lines would bury the run's own lines (set before the handlers load).
process.env.POWERTOOLS_LOG_LEVEL ??= 'SILENT';
const { runChaos } = await import('../support/chaos.ts');

/**
 * `npm run test:chaos [-- --seed 7 --tenants 50]`: the chaos run of issue 25 on a control plane in
 * this process. Prints the faults per kind, what the driver gave up on, every violation, and last
 * the line `chaos: F faults over K kinds, V invariant violations, settled in S s`. Exits 1 when V > 0.
 */
const { values } = parseArgs({
  options: {
    seed: { type: 'string', default: '1' },
    tenants: { type: 'string', default: '50' },
    share: { type: 'string', default: '0.05' },
  },
});
const seed = Number(values.seed);
const tenants = Number(values.tenants);
const share = Number(values.share);
if (!Number.isInteger(seed) || !Number.isInteger(tenants) || tenants < 1 || !(share > 0 && share <= 1)) {
  console.error('Usage: npm run test:chaos -- [--seed <integer>] [--tenants <1 or more>] [--share <0..1>]');
  process.exit(2);
}
const result = await runChaos({ seed, tenants, share, log: (line) => console.log(line) });
console.log('faults per kind:');
for (const [kind, count] of Object.entries(result.firedByKind)) console.log(`  ${kind.padEnd(36)} ${count}`);
if (result.abandoned.length) {
  console.log(`steps the driver gave up on (${result.abandoned.length}):`);
  for (const step of result.abandoned) console.log(`  ${step}`);
}
if (result.refusedRetryably.length) {
  console.log(
    `steps refused all along with "nothing written, try again" answers (correct under sustained faults; ${result.refusedRetryably.length}):`,
  );
  for (const step of result.refusedRetryably) console.log(`  ${step}`);
}
for (const violation of result.violations) console.log(`VIOLATION ${violation}`);
for (const line of result.diagnosis) console.log(`still owed: ${line}`);
console.log(result.line);
process.exit(result.violations.length ? 1 : 0);
