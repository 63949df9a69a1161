// Mutation testing (`npm run test:mutation`; not part of .ci/run: it takes minutes per area).
// One group of an area per Stryker run: test/mutation/run.ts sets MUTATION_AREA and MUTATION_GROUP
// for each in turn, and test/mutation/areas.ts says what each group mutates and which tests judge it.
import { currentGroup } from './test/mutation/areas.ts';

const { area: areaName, group } = currentGroup();
const name = `${areaName}.${group.name}`;

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: 'vitest',
  plugins: ['@stryker-mutator/vitest-runner', './test/mutation/ignore-logging.mjs'],
  // Log lines are not mutated (test/mutation/ignore-logging.mjs says why).
  ignorers: ['logging'],
  // Only the group's test files (see that config for why not Stryker's `testFiles`).
  vitest: {
    configFile: 'test/mutation/vitest.config.ts',
    related: false,
    // The integration layer runs in forks, as in vitest.config.ts.
    pool: group.integration.length > 0 ? 'forks' : 'threads',
  },
  mutate: group.mutate,
  // Per-test coverage: a mutant runs only the tests that reach it.
  coverageAnalysis: 'perTest',
  // The machine is shared (2 cores), and each runner of the integration layer starts its own
  // DynamoDB Local.
  concurrency: 1,
  timeoutMS: 30_000,
  dryRunTimeoutMinutes: 30,
  // Mutants whose code and tests did not change keep their last result (the file is not committed).
  incremental: true,
  incrementalFile: `.reports/mutation/${name}-incremental.json`,
  reporters: ['json', 'html', 'clear-text', 'progress-append-only'],
  jsonReporter: { fileName: `.reports/mutation/${name}.json` },
  htmlReporter: { fileName: `.reports/mutation/${name}.html` },
  // The score table per file; the mutants themselves are in the JSON and HTML reports.
  clearTextReporter: {
    allowColor: false,
    allowEmojis: false,
    logTests: false,
    reportMutants: false,
    reportTests: false,
  },
  tempDirName: '.stryker-tmp',
  // The sandbox needs the sources, the tests and the configs, not the local state or build output.
  ignorePatterns: ['.local', 'cdk.out', '.reports', 'test-output', '.ci'],
  cleanTempDir: true,
};
