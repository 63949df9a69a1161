import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../lib/constants.ts';
import { cdkJsonContext, synthCheckContext } from '../../lib/infra/app.ts';
import { ContextError, readDeploymentSettings, SYNTH_CHECK_STAGE } from '../../lib/infra/settings.ts';

/**
 * The context is checked before anything is built (lib/infra/settings.ts, issue 22 item 4): a
 * placeholder, a missing region or a console certificate outside us-east-1 stops `cdk synth` with
 * one line per problem that says what to set; the synth-check stage (CI, these tests) passes.
 */

const source = (context: Record<string, unknown>) => ({ tryGetContext: (key: string) => context[key] });

/** The synth-check stage's values with some replaced (undefined: removed). */
const stageWith = (values: Record<string, unknown>) => {
  const context = synthCheckContext();
  const stages = context.stages as Record<string, Record<string, unknown>>;
  const own = { ...stages[SYNTH_CHECK_STAGE], ...values };
  for (const [key, value] of Object.entries(own)) if (value === undefined) delete own[key];
  return source({ ...context, stages: { ...stages, [SYNTH_CHECK_STAGE]: own } });
};

const problemsOf = (context: { tryGetContext(key: string): unknown }): string[] => {
  try {
    readDeploymentSettings(context);
  } catch (error) {
    if (error instanceof ContextError) return [...error.problems];
    throw error;
  }
  return [];
};

describe('the deployment context', () => {
  it('the synth-check stage passes, with its explicit region and the never-deployable account', () => {
    const deployment = readDeploymentSettings(source(synthCheckContext()));
    expect(deployment).toMatchObject({
      stage: 'synth-check',
      stackName: 'StackControlPlane-synth-check',
      region: 'eu-west-1',
      account: '000000000000',
    });
    expect(deployment.settings.stackDomain).toBe('stacks.synth-check.test');
    // Shared, top-level values apply to every stage.
    expect(deployment.settings.codeHostApiUrl).toBe('https://api.github.com');
  });

  it('cdk.json as shipped (stage dev) is refused: each placeholder, one line naming the key and where to set it', () => {
    const problems = problemsOf(source(cdkJsonContext()));
    expect(problems.map((line) => line.match(/^context "(\w+)"/)?.[1])).toEqual([
      'region',
      'stackDomain',
      'codeHostClientId',
      'mailFrom',
      'supportEmail',
      // The stage's initial places (issue 36, item 1): a placeholder until the team sets its own.
      'capacity',
    ]);
    for (const line of problems) {
      expect(line).not.toContain('\n');
      expect(line).toContain('cdk.json under "stages"."dev"');
    }
  });

  it('a missing region is refused (never the CLI default, us-east-1)', () => {
    expect(problemsOf(stageWith({ region: undefined }))).toEqual([
      expect.stringMatching(/^context "region" is not set: .*us-east-1/),
    ]);
    expect(problemsOf(stageWith({ region: 'Ireland' }))).toEqual([
      expect.stringMatching(/^context "region" "Ireland" is not an AWS region/),
    ]);
  });

  it('a missing required value, a placeholder in any value, and a bad account are refused', () => {
    expect(problemsOf(stageWith({ mailFrom: undefined }))).toEqual([
      'context "mailFrom" is not set: set it in cdk.json under "stages"."synth-check"',
    ]);
    expect(problemsOf(stageWith({ alarmEmail: 'ops@example.org' }))).toEqual([
      expect.stringMatching(/^context "alarmEmail" is still the placeholder/),
    ]);
    expect(problemsOf(stageWith({ account: 'replace-with-your-account' }))).toHaveLength(1);
    expect(problemsOf(stageWith({ account: '1234' }))).toEqual([
      expect.stringMatching(/^context "account" "1234" is not a 12-digit AWS account id/),
    ]);
  });

  it('an SES send rate that is not a whole number of emails per second is refused', () => {
    expect(problemsOf(stageWith({ sesMaxSendRate: '14' }))).toEqual([]);
    for (const rate of ['0', '1.5', 'fast'])
      expect(problemsOf(stageWith({ sesMaxSendRate: rate }))).toEqual([
        expect.stringMatching(/^context "sesMaxSendRate" must be a whole number of emails per second/),
      ]);
  });

  it('a console certificate outside us-east-1, or a domain without its certificate, is refused', () => {
    const domain = 'console.synth-check.test';
    expect(
      problemsOf(
        stageWith({
          consoleDomainName: domain,
          consoleCertificateArn: 'arn:aws:acm:eu-west-1:123456789012:certificate/abc',
        }),
      ),
    ).toEqual([
      expect.stringMatching(/^context "consoleCertificateArn" must be an ACM certificate in us-east-1/),
    ]);
    expect(problemsOf(stageWith({ consoleDomainName: domain }))).toEqual([
      expect.stringMatching(/"consoleDomainName" and "consoleCertificateArn" go together/),
    ]);
    expect(
      problemsOf(
        stageWith({
          consoleDomainName: domain,
          consoleCertificateArn: 'arn:aws:acm:us-east-1:123456789012:certificate/abc',
        }),
      ),
    ).toEqual([]);
  });

  it('a stage name that cannot go into names is refused', () => {
    expect(problemsOf(source({ ...cdkJsonContext(), stage: 'Prod_1' }))).toEqual([
      expect.stringMatching(/^context "stage" must be a short lower-case name/),
    ]);
  });

  it('`cdk synth` with cdk.json as shipped stops with those lines only, no stack trace', async () => {
    const run = promisify(execFile)('npx', ['cdk', 'synth', '--quiet', '--no-notices'], {
      cwd: REPO_ROOT,
      env: { ...process.env, CDK_DISABLE_VERSION_CHECK: '1' },
    });
    const failure = (await run.then(
      () => undefined,
      (error: unknown) => error,
    )) as { code?: number; stderr?: string } | undefined;
    expect(failure?.code).toBe(1);
    const lines = (failure?.stderr ?? '').trim().split('\n');
    const ours = lines.filter((line) => line.startsWith('context "'));
    expect(ours).toHaveLength(6);
    expect(lines.filter((line) => /^\s+at /.test(line))).toEqual([]);
  }, 60_000);
});
