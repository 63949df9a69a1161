import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from '../../lib/constants.ts';
import { AREA_NAMES, type AreaName, isAreaName } from './areas.ts';

/**
 * `npm run test:mutation [-- area ...]`: runs Stryker once per area (all four by default; see
 * areas.ts), one after the other, then prints each area's score and time. The last line is
 * `mutation score: core N%, billing N%, plan-changes N%, credentials N%`; an area not run this time
 * shows its last report's score (the line above says so), or `n/a` when it never ran.
 * Incremental: a mutant whose code and covering tests did not change keeps its last result
 * (`.reports/mutation/<area>-incremental.json`; delete it, or pass `--force`, for a full run).
 */

const incrementalFile = (area: AreaName) =>
  path.join(REPO_ROOT, '.reports', 'mutation', `${area}-incremental.json`);

/**
 * Stryker's incremental mode keeps a static mutant (one in code run when a module loads) that
 * survived or had no coverage even after tests were added: such a mutant has no per-test coverage,
 * so Stryker never sees a new test reach it. Those are dropped from the incremental file before a
 * run, so they are tested again (each runs the area's whole test selection, a few seconds).
 */
const forgetUndetectedStaticMutants = (area: AreaName): number => {
  const file = incrementalFile(area);
  if (!existsSync(file)) return 0;
  const report = JSON.parse(readFileSync(file, 'utf8')) as {
    files: Record<string, { mutants: { static?: boolean; status: string }[] }>;
  };
  let dropped = 0;
  for (const entry of Object.values(report.files)) {
    const kept = entry.mutants.filter(
      (mutant) => !mutant.static || mutant.status === 'Killed' || mutant.status === 'Timeout',
    );
    dropped += entry.mutants.length - kept.length;
    entry.mutants = kept;
  }
  if (dropped > 0) writeFileSync(file, JSON.stringify(report));
  return dropped;
};

/** Stryker's mutation score: detected / (detected + undetected), compile and runtime errors aside. */
const mutationScore = (statuses: readonly string[]): number | undefined => {
  const detected = statuses.filter((s) => s === 'Killed' || s === 'Timeout').length;
  const undetected = statuses.filter((s) => s === 'Survived' || s === 'NoCoverage').length;
  return detected + undetected === 0 ? undefined : (100 * detected) / (detected + undetected);
};

const reportFile = (area: AreaName) => path.join(REPO_ROOT, '.reports', 'mutation', `${area}.json`);

/** The score of an area's last report, with its survivors and uncovered mutants. */
const lastReport = (area: AreaName) => {
  const file = reportFile(area);
  if (!existsSync(file)) return undefined;
  const report = JSON.parse(readFileSync(file, 'utf8')) as {
    files: Record<string, { mutants: { status: string }[] }>;
  };
  const statuses = Object.values(report.files).flatMap((f) => f.mutants.map((m) => m.status));
  return {
    score: mutationScore(statuses),
    survived: statuses.filter((s) => s === 'Survived').length,
    noCoverage: statuses.filter((s) => s === 'NoCoverage').length,
    total: statuses.length,
  };
};

const args = process.argv.slice(2);
const force = args.includes('--force');
const named = args.filter((arg) => !arg.startsWith('--'));
for (const name of named)
  if (!isAreaName(name)) {
    console.error(`unknown area "${name}": one of ${AREA_NAMES.join(', ')}`);
    process.exit(2);
  }
const areas = named.length > 0 ? AREA_NAMES.filter((area) => named.includes(area)) : [...AREA_NAMES];

const minutes = new Map<AreaName, number>();
let failed = false;
for (const area of areas) {
  console.log(`\n=== mutation testing: ${area} ===`);
  const retested = force ? 0 : forgetUndetectedStaticMutants(area);
  if (retested > 0) console.log(`${retested} static mutants not killed last time are tested again`);
  const started = performance.now();
  const run = spawnSync(
    process.execPath,
    [
      path.join(REPO_ROOT, 'node_modules', '@stryker-mutator', 'core', 'bin', 'stryker.js'),
      'run',
      ...(force ? ['--force'] : []),
    ],
    { cwd: REPO_ROOT, stdio: 'inherit', env: { ...process.env, MUTATION_AREA: area } },
  );
  minutes.set(area, (performance.now() - started) / 60_000);
  if (run.status !== 0) {
    console.error(`Stryker failed for ${area} (exit ${run.status ?? run.signal})`);
    failed = true;
  }
}

console.log('');
const scores: string[] = [];
for (const area of AREA_NAMES) {
  const report = lastReport(area);
  const ran = minutes.get(area);
  const when = ran === undefined ? 'last report, not run now' : `${ran.toFixed(1)} min`;
  console.log(
    report
      ? `${area}: ${report.total} mutants, ${report.survived} survived, ${report.noCoverage} without coverage (${when})`
      : `${area}: never run`,
  );
  // Whole percents, rounded down: a score shown at the target is at or over it.
  scores.push(`${area} ${report?.score === undefined ? 'n/a' : `${Math.floor(report.score)}%`}`);
}
console.log(`mutation score: ${scores.join(', ')}`);
process.exitCode = failed ? 1 : 0;
