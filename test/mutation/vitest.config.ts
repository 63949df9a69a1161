import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig, type TestProjectInlineConfiguration } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { currentGroup } from './areas.ts';

/**
 * The vitest configuration of a mutation run: the unit and integration layers as in
 * vitest.config.ts, each limited to the test files of the group being mutated (areas.ts).
 * Stryker's own `testFiles` option is not used: with it, Stryker activates a mutant of a module's
 * top-level code only after the module was loaded, so every such mutant "survives"
 * (stryker-js issues 6144 and 6209).
 */
const { group } = currentGroup();
const projects: TestProjectInlineConfiguration[] = [];
/** A layer of vitest.config.ts, on the group's test files of that layer. */
const layer = (name: string, include: string[], test: TestProjectInlineConfiguration['test']) => {
  if (include.length > 0) projects.push({ test: { name, include, exclude: group.exclude ?? [], ...test } });
};
layer('unit', group.unit, { setupFiles: ['test/support/test-environment.ts'], testTimeout: 10_000 });
layer('integration', group.integration, {
  globalSetup: ['test/support/global-setup.ts'],
  setupFiles: ['test/support/test-environment.ts', 'test/support/worker-env.ts'],
  testTimeout: 30_000,
  hookTimeout: 120_000,
  // A mutation run loads the machine (instrumented code, one runner beside other work): a
  // scenario bound by the processor's deadlines may miss one. A test a mutant really breaks
  // fails every time, so retries only spare the timing.
  retry: 2,
});

const root = fileURLToPath(new URL('../..', import.meta.url));

/**
 * Within a project, a group's test files run in the order areas.ts lists them (a file a glob
 * matched runs after the listed ones). A mutant runs the tests that reach it and stops at the
 * first that fails (Stryker's bail), so a group lists its quick, direct tests before the long
 * scenarios: a mutant a direct test kills is then judged in seconds, not after every scenario.
 * The order changes only how long a mutant takes, never whether it is killed.
 */
class GroupOrder extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const listed = [...group.unit, ...group.integration];
    const rank = (spec: TestSpecification) => {
      const index = listed.indexOf(path.relative(root, spec.moduleId));
      return index < 0 ? listed.length : index;
    };
    return sorted
      .map((spec, index) => ({ spec, index, rank: rank(spec) }))
      .sort((a, b) =>
        a.spec.project.name === b.spec.project.name
          ? a.rank - b.rank || a.index - b.index
          : a.index - b.index,
      )
      .map(({ spec }) => spec);
  }
}

export default defineConfig({
  root,
  test: { projects, sequence: { sequencer: GroupOrder } },
});
