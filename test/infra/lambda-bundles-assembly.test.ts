import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { App, NestedStack, Stack } from 'aws-cdk-lib';
import { HttpApi, HttpMethod } from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import { Code, Function as LambdaFunction, Runtime } from 'aws-cdk-lib/aws-lambda';
import { afterAll, describe, expect, it } from 'vitest';
import { readAssembly } from '../support/lambda-bundles.ts';

/**
 * The bundle test finds a function's bundle and wiring from the assembly alone, also when the
 * stack is split into nested stacks: here a route in one nested stack reaches a function of
 * another through CloudFormation parameters and outputs, as CDK wires a cross-stack reference.
 */
describe('reading a cloud assembly with nested stacks', () => {
  const folder = mkdtempSync(path.join(tmpdir(), 'bundle-assembly-'));
  afterAll(() => rmSync(folder, { recursive: true, force: true }));

  it('finds the function of a nested stack, its bundle folder, and the route of another nested stack that reaches it', () => {
    const code = path.join(folder, 'code');
    mkdirSync(code);
    writeFileSync(
      path.join(code, 'index.mjs'),
      'export const handler = async () => ({ statusCode: 204 });\n',
    );
    const app = new App({ outdir: path.join(folder, 'assembly') });
    const stack = new Stack(app, 'Parent', { env: { account: '000000000000', region: 'eu-west-1' } });
    const functions = new NestedStack(stack, 'Functions');
    const fn = new LambdaFunction(functions, 'Thing', {
      runtime: Runtime.NODEJS_24_X,
      handler: 'index.handler',
      code: Code.fromAsset(code),
      environment: { PLAIN: 'kept' },
    });
    const api = new HttpApi(new NestedStack(stack, 'Api'), 'Http');
    api.addRoutes({
      path: '/v1/thing',
      methods: [HttpMethod.GET],
      integration: new HttpLambdaIntegration('ThingIntegration', fn),
    });
    const assembly = readAssembly(app.synth().directory);

    const nodeFunctions = assembly.functions.filter((found) => found.runtime === 'nodejs24.x');
    expect(nodeFunctions).toHaveLength(1);
    const [thing] = nodeFunctions;
    expect(thing?.templateFile).toMatch(/Functions.*\.nested\.template\.json$/);
    expect(thing?.environment).toEqual({ PLAIN: 'kept' });
    expect(existsSync(path.join(thing?.bundleDirectory ?? '', 'index.mjs'))).toBe(true);
    expect(assembly.routes.get('GET /v1/thing')).toEqual({
      functionId: thing?.logicalId,
      authorization: 'NONE',
    });
  });
});
