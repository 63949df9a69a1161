import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from '../../lib/constants.ts';
import { AREA_NAMES, AREAS, type AreaName, isAreaName } from './areas.ts';

/**
 * `npm run test:mutation [-- area ...] [-- --force]`: runs Stryker once per group of each area (all
 * four areas by default; see areas.ts), one after the other, then prints each area's mutants and
 * time. The last line is `mutation score: core N%, billing N%, plan-changes N%, credentials N%`
 * (whole percents, rounded down); an area not run this time shows its last reports' score (the
 * line above says so), or `n/a` when it never ran.
 * Incremental: a mutant whose code and covering tests did not change keeps its last result
 * (`.reports/mutation/<area>.<group>-incremental.json`); `--force` tests every mutant again.
 */

const reportDir = path.join(REPO_ROOT, '.reports', 'mutation');
const reportFile = (area: AreaName, group: string) => path.join(reportDir, `${area}.${group}.json`);
const incrementalFile = (area: AreaName, group: string) =>
  path.join(reportDir, `${area}.${group}-incremental.json`);

interface StoredMutant {
  static?: boolean;
  status: string;
}
interface StoredReport {
  files: Record<string, { mutants: StoredMutant[] }>;
}

/**
 * Stryker's incremental mode keeps a static mutant (one in code run when a module loads) that
 * survived or had no coverage even after tests were added: such a mutant has no per-test coverage,
 * so Stryker never sees a new test reach it. Those are dropped from the incremental file before a
 * run, so they are tested again (each runs the group's whole test selection).
 */
const forgetUndetectedStaticMutants = (file: string): number => {
  if (!existsSync(file)) return 0;
  const report = JSON.parse(readFileSync(file, 'utf8')) as StoredReport;
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

/** Every mutant status of an area's last reports, or undefined when a group never ran. */
const statusesOf = (area: AreaName): string[] | undefined => {
  const statuses: string[] = [];
  for (const group of AREAS[area]) {
    const file = reportFile(area, group.name);
    if (!existsSync(file)) return undefined;
    const report = JSON.parse(readFileSync(file, 'utf8')) as StoredReport;
    for (const entry of Object.values(report.files)) statuses.push(...entry.mutants.map((m) => m.status));
  }
  return statuses;
};

/** Stryker's mutation score: detected / (detected + undetected); compile and runtime errors aside. */
const mutationScore = (statuses: readonly string[]): number | undefined => {
  const detected = statuses.filter((s) => s === 'Killed' || s === 'Timeout').length;
  const undetected = statuses.filter((s) => s === 'Survived' || s === 'NoCoverage').length;
  return detected + undetected === 0 ? undefined : (100 * detected) / (detected + undetected);
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
  const started = performance.now();
  for (const group of AREAS[area]) {
    console.log(`\n=== mutation testing: ${area}, ${group.name} ===`);
    const retested = force ? 0 : forgetUndetectedStaticMutants(incrementalFile(area, group.name));
    if (retested > 0) console.log(`${retested} static mutants not killed last time are tested again`);
    const run = spawnSync(
      process.execPath,
      [
        path.join(REPO_ROOT, 'node_modules', '@stryker-mutator', 'core', 'bin', 'stryker.js'),
        'run',
        ...(force ? ['--force'] : []),
      ],
      {
        cwd: REPO_ROOT,
        stdio: 'inherit',
        env: { ...process.env, MUTATION_AREA: area, MUTATION_GROUP: group.name },
      },
    );
    if (run.status !== 0) {
      console.error(`Stryker failed for ${area}, ${group.name} (exit ${run.status ?? run.signal})`);
      failed = true;
    }
  }
  minutes.set(area, (performance.now() - started) / 60_000);
}

console.log('');
const scores: string[] = [];
for (const area of AREA_NAMES) {
  const statuses = statusesOf(area);
  const score = statuses && mutationScore(statuses);
  const ran = minutes.get(area);
  const when = ran === undefined ? 'last reports, not run now' : `${ran.toFixed(1)} min`;
  console.log(
    statuses
      ? `${area}: ${statuses.length} mutants, ${statuses.filter((s) => s === 'Survived').length} survived, ${statuses.filter((s) => s === 'NoCoverage').length} without coverage (${when})`
      : `${area}: not every group has run yet`,
  );
  // Whole percents, rounded down: a score shown at the target is at or over it.
  scores.push(`${area} ${score === undefined ? 'n/a' : `${Math.floor(score)}%`}`);
}
console.log(`mutation score: ${scores.join(', ')}`);
process.exitCode = failed ? 1 : 0;
