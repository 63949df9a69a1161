import { runRestoreDrill } from '../support/restore-drill.ts';

/**
 * `npm run drill:restore`: the runbook's point-in-time restore rehearsed locally (docs/runbook.md,
 * "Restoring the table to a point in time"). Exits 1 when an invariant does not hold.
 * `node test/drill/restore.ts [tenantsBefore] [tenantsAfter]`.
 */
const [before = '4', after = '2'] = process.argv.slice(2);
const result = await runRestoreDrill({
  before: Number(before),
  after: Number(after),
  log: (line) => console.log(line),
});
process.exit(result.violations.length === 0 ? 0 : 1);
