import { readFileSync } from 'node:fs';
import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { env } from '../../functions/ports/config.ts';
import type { Route } from '../routes.ts';
import { ControlPlaneStack } from './control-plane-stack.ts';
import { ContextError, readDeploymentSettings, SYNTH_CHECK_STAGE } from './settings.ts';

/** The context of cdk.json, for an App made outside the CDK CLI (tests). */
export const cdkJsonContext = (): Record<string, unknown> =>
  (
    JSON.parse(readFileSync(new URL('../../cdk.json', import.meta.url), 'utf8')) as {
      context: Record<string, unknown>;
    }
  ).context;

/**
 * cdk.json's context with the synth-check stage selected (test values, never deployable): what CI's
 * `npm run synth -- -c stage=synth-check` and the infra tests synthesize.
 */
export const synthCheckContext = (extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  ...cdkJsonContext(),
  stage: SYNTH_CHECK_STAGE,
  ...extra,
});

/**
 * Builds the CDK app with cdk-nag's AwsSolutions checks; used by `cdk synth` and the infra tests.
 * The context is checked first (lib/infra/settings.ts): a missing or placeholder value throws a
 * ContextError naming what to set.
 */
export const buildApp = (app = new App(), options: { routes?: readonly Route[] } = {}) => {
  const deployment = readDeploymentSettings(app.node);
  const stack = new ControlPlaneStack(app, deployment.stackName, {
    env: {
      // Unset: the account of the deploying credentials (the CLI sets CDK_DEFAULT_ACCOUNT).
      account: deployment.account ?? env('CDK_DEFAULT_ACCOUNT'),
      // Never the CLI's CDK_DEFAULT_REGION: without a configured region it is us-east-1.
      region: deployment.region,
    },
    description: `Stack Control Plane (stage ${deployment.stage}): tenants, billing, Plan Changes`,
    stage: deployment.stage,
    settings: deployment.settings,
    ...(options.routes ? { routes: options.routes } : {}),
  });
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  return { app, stack, deployment };
};

if (import.meta.main) {
  try {
    buildApp().app.synth();
  } catch (error) {
    if (!(error instanceof ContextError)) throw error;
    // One line per problem, no stack trace: the message says what to set.
    console.error(error.message);
    process.exit(1);
  }
}
