import { parseArgs } from 'node:util';

// The run's own lines only (the handlers that run here, for the checks, stay quiet).
process.env.POWERTOOLS_LOG_LEVEL ??= 'SILENT';
const { runCrash } = await import('../support/crash.ts');

/**
 * `npm run test:crash [-- --seed 7] [-- --short]`: the crash run of issue 37 (test/support/crash.ts).
 * Full: 40 tenants, at least 30 kills; `--short` (CI): 10 tenants, at least 10 kills. Prints the
 * kills per point, what the driver gave up on, every violation, and last the line
 * `crash: K kills at P points, V violations, settled in S s`. Exits 1 when V > 0.
 */
const { values } = parseArgs({
  options: {
    seed: { type: 'string', default: '1' },
    short: { type: 'boolean', default: false },
    tenants: { type: 'string' },
    kills: { type: 'string' },
  },
});
const seed = Number(values.seed);
const tenants = Number(values.tenants ?? (values.short ? 4 : 40));
const kills = Number(values.kills ?? (values.short ? 6 : 30));
if (!Number.isInteger(seed) || !Number.isInteger(tenants) || tenants < 1 || !Number.isInteger(kills)) {
  console.error('Usage: npm run test:crash -- [--seed <integer>] [--short] [--tenants <n>] [--kills <n>]');
  process.exit(2);
}
const result = await runCrash({
  seed,
  tenants,
  kills,
  // The full run must reach eight named points. The short run (CI) stops its kills once counted and
  // its drive before the renewal; its lives are shorter and mostly armed, and it must reach three.
  ...(values.short
    ? {
        short: true,
        randomLifeMs: [1_000, 3_000] as [number, number],
        pointLifeMs: 12_000,
        randomShare: 0.2,
        leastPoints: 3,
      }
    : { leastPoints: 8 }),
  log: (line) => console.log(`[${(performance.now() / 1000).toFixed(0).padStart(4)} s] ${line}`),
});
console.log('kills per point:');
for (const [point, count] of Object.entries(result.byPoint)) console.log(`  ${point.padEnd(36)} ${count}`);
if (result.abandoned.length) {
  console.log(`steps the driver gave up on (${result.abandoned.length}):`);
  for (const step of result.abandoned) console.log(`  ${step}`);
}
for (const violation of result.violations) console.log(`VIOLATION ${violation}`);
console.log(result.line);
process.exit(result.violations.length ? 1 : 0);
