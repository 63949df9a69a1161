import { readFileSync } from 'node:fs';
import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { DEFAULTS, env } from '../../functions/ports/config.ts';
import { ControlPlaneStack } from './control-plane-stack.ts';

/** The context of cdk.json, for an App made outside the CDK CLI (tests). */
export const cdkJsonContext = (): Record<string, unknown> =>
  (
    JSON.parse(readFileSync(new URL('../../cdk.json', import.meta.url), 'utf8')) as {
      context: Record<string, unknown>;
    }
  ).context;

/** Builds the CDK app with cdk-nag's AwsSolutions checks; used by `cdk synth` and the infra tests. */
export const buildApp = (app = new App()) => {
  const stack = new ControlPlaneStack(app, 'StackControlPlane', {
    env: {
      account: env('CDK_DEFAULT_ACCOUNT'),
      region: env('CDK_DEFAULT_REGION') ?? DEFAULTS.CDK_DEFAULT_REGION,
    },
    description: 'Stack Control Plane: tenants, billing, Plan Changes',
  });
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  return { app, stack };
};

if (import.meta.main) {
  buildApp().app.synth();
}
