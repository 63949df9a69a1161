import { fileURLToPath } from 'node:url';
import { defineConfig, type TestProjectInlineConfiguration } from 'vitest/config';
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

export default defineConfig({
  root: fileURLToPath(new URL('../..', import.meta.url)),
  test: { projects },
});
