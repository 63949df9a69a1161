import { execFile, execFileSync } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { App } from 'aws-cdk-lib';
import { describe, expect, it } from 'vitest';
import { buildApp, synthCheckContext } from '../../lib/infra/app.ts';
import { stackFiles } from '../../lib/infra/assembly.ts';

/**
 * cfn-lint finds no error in the template (issue 22 item 11; `.ci/run` runs it on the bundled
 * synth too). Where the machine has no cfn-lint the test is skipped, as CI skips it. Not bundled:
 * the template is the same but for asset hashes.
 */
const cfnLint = (() => {
  try {
    execFileSync('cfn-lint', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

/**
 * `.ci/run`'s cfn-lint phase has linted the same templates (bundled) and failed CI on an error
 * before this layer runs: it says so, and this test does not synthesize and lint them again.
 */
const lintedByCi = process.env.CFN_LINT_PHASE_PASSED === '1';

describe('cfn-lint', () => {
  it.skipIf(!cfnLint || lintedByCi)(
    'finds no error in the synthesized templates, the root and every nested stack (W3005 ignored, as in .ci/run)',
    async () => {
      const { app, stack } = buildApp(
        new App({ context: synthCheckContext({ 'aws:cdk:bundling-stacks': [] }) }),
      );
      const { directory } = app.synth();
      // The root stack's template and each nested stack's (one per API feature area).
      const files = stackFiles(stack).map((file) => path.join(directory, file.templateFile));
      expect(files.length).toBeGreaterThan(1);
      const result = await promisify(execFile)(
        'cfn-lint',
        [
          '--non-zero-exit-code',
          'error',
          '--ignore-checks',
          'W3005',
          '--format',
          'parseable',
          '--',
          ...files,
        ],
        { maxBuffer: 16 * 1024 * 1024 },
      ).then(
        ({ stdout }) => ({ code: 0, stdout }),
        (error: { code?: number; stdout?: string }) => ({ code: error.code, stdout: error.stdout ?? '' }),
      );
      const errors = result.stdout.split('\n').filter((line) => /:E\d{4}:/.test(line));
      expect(errors).toEqual([]);
      expect(result.code).toBe(0);
    },
    180_000,
  );
});
