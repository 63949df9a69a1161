import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { declaredStage, parseCapacity, STACK_OUTPUTS, UnknownStage } from '../../lib/deployment.ts';
import { ProcessorEmulator } from '../../lib/local/processor/emulator.ts';
import { NoCredentials, type StageCloud } from '../../lib/ops/cloud.ts';
import { stageTarget } from '../../lib/ops/smoke.ts';
import { processorSignature, runSmoke, type SmokeTarget, smokeReport } from '../../lib/ops/smoke-checks.ts';
import {
  checkedSecretValue,
  deployedStage,
  leftovers,
  StageProblem,
  secretStates,
  stageEnvironment,
} from '../../lib/ops/stage.ts';
import { runOps } from '../support/ops-cli.ts';

/**
 * Issue 36: the ops CLI and the smoke test find a deployed stage by its name (cdk.json's region,
 * CloudFormation's outputs). The AWS side is a small interface (lib/ops/cloud.ts): here a fake
 * that answers as the account would; bad input says so in one line and writes nothing.
 */

const cdkJson = () => {
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'cdk-json-')), 'cdk.json');
  writeFileSync(
    file,
    JSON.stringify({
      context: {
        stages: {
          prod: { region: 'eu-west-1', capacity: 'eu-west-1a: standard=20' },
          noregion: { stackDomain: 'x.test' },
        },
      },
    }),
  );
  return file;
};

const allOutputs = Object.fromEntries(Object.values(STACK_OUTPUTS).map((name) => [name, `value-of-${name}`]));

/** A fake account: `stack` as given; every call recorded. */
const fakeCloud = (
  stack: Awaited<ReturnType<StageCloud['stack']>> | Error,
  extra: Partial<StageCloud> = {},
) => {
  const calls: string[] = [];
  const cloud: StageCloud = {
    stack: async (name) => {
      calls.push(`stack ${name}`);
      if (stack instanceof Error) throw stack;
      return stack;
    },
    readSecret: async () => 'whsec_real',
    writeSecret: async (arn) => {
      calls.push(`write ${arn}`);
    },
    senderVerified: async () => ({ verified: true, identity: 'x.test' }),
    alarmsInAlarm: async () => [],
    sweepsCompletedSince: async () => 1,
    taggedResources: async () => [],
    ...extra,
  };
  return { cloud, calls };
};

describe('a stage by its name', () => {
  it('cdk.json gives its region and initial capacity; an unknown stage or a bad name is one line', () => {
    const file = cdkJson();
    expect(declaredStage('prod', file)).toEqual({
      stage: 'prod',
      stackName: 'StackControlPlane-prod',
      region: 'eu-west-1',
      capacity: 'eu-west-1a: standard=20',
    });
    expect(() => declaredStage('nope', file)).toThrow(
      new UnknownStage('Unknown stage "nope": cdk.json declares noregion, prod (under "stages").'),
    );
    expect(() => declaredStage('Bad_Name', file)).toThrow(UnknownStage);
    expect(() => declaredStage('noregion', file)).toThrow(/has no AWS region in cdk.json/);
  });

  it('a stage never deployed, or whose first deploy failed, says so; no credentials passes through as one line', async () => {
    const file = cdkJson();
    await expect(deployedStage('prod', () => fakeCloud(undefined).cloud, file)).rejects.toThrow(
      new StageProblem(
        'Stage "prod" was never deployed: region eu-west-1 has no stack StackControlPlane-prod (npm run deploy -- -c stage=prod; or check the credentials\' account).',
      ),
    );
    await expect(
      deployedStage(
        'prod',
        () => fakeCloud({ stackId: 'id', status: 'ROLLBACK_COMPLETE', outputs: {} }).cloud,
        file,
      ),
    ).rejects.toThrow(/ROLLBACK_COMPLETE: its first deploy failed.*leftovers --stage prod/);
    await expect(
      deployedStage('prod', () => fakeCloud(new NoCredentials('No usable AWS credentials')).cloud, file),
    ).rejects.toThrow(NoCredentials);
    await expect(
      deployedStage(
        'prod',
        () => fakeCloud({ stackId: 'id', status: 'UPDATE_COMPLETE', outputs: { ApiUrl: 'x' } }).cloud,
        file,
      ),
    ).rejects.toThrow(/has no output .*TableName.*deploy this one/);
  });

  it('a deployed stage gives our code the table, queues, state machine and secrets its Lambdas get', async () => {
    const { cloud, calls } = fakeCloud({
      stackId: 'arn:stack/1',
      status: 'UPDATE_COMPLETE',
      outputs: allOutputs,
    });
    const { stage } = await deployedStage('prod', () => cloud, cdkJson());
    expect(stageEnvironment(stage)).toEqual({
      AWS_REGION: 'eu-west-1',
      TABLE_NAME: 'value-of-TableName',
      PROCESSOR_EVENTS_QUEUE_URL: 'value-of-ProcessorEventsQueueUrl',
      PROCESSOR_EVENTS_DLQ_URL: 'value-of-ProcessorEventsDeadLetterQueueUrl',
      PLAN_CHANGE_STATE_MACHINE_ARN: 'value-of-PlanChangeStateMachineArn',
      MAIL_FROM: 'value-of-MailFrom',
      CODE_HOST_CLIENT_SECRET_ARN: 'value-of-CodeHostClientSecretArn',
      PROCESSOR_API_KEY_ARN: 'value-of-ProcessorApiKeyArn',
      PROCESSOR_WEBHOOK_SECRET_ARN: 'value-of-ProcessorWebhookSecretArn',
      EXPORTS_SIGNING_KEY_ARN: 'value-of-ExportsSigningKeyArn',
    });
    expect(calls).toEqual(['stack StackControlPlane-prod']);
  });
});

describe('secrets', () => {
  it('status names the placeholders (CloudFormation generated) and never a value', async () => {
    const values: Record<string, string> = {
      'code-host-client-secret': 'a'.repeat(40),
      'processor-api-key': 'Ab1!Ab1!Ab1!Ab1!Ab1!Ab1!Ab1!Ab1!',
      'processor-webhook-secret': 'whsec_abc',
      'exports-signing-key': '-----BEGIN PRIVATE KEY-----\n...',
    };
    const states = await secretStates(async (name) => values[name]);
    expect(states.filter((state) => !state.set).map((state) => state.name)).toEqual(['processor-api-key']);
    expect(JSON.stringify(states)).not.toContain('Ab1!');
  });

  it('set refuses a placeholder, an empty value or the wrong shape, and keeps a good one without its line end', () => {
    expect(() => checkedSecretValue('processor-webhook-secret', '\n')).toThrow(
      /Refused: .* is empty\. Nothing was written\./,
    );
    expect(() => checkedSecretValue('processor-api-key', 'whsec_abc\n')).toThrow(
      /does not look like a secret key/,
    );
    expect(checkedSecretValue('processor-webhook-secret', 'whsec_abc\n')).toBe('whsec_abc');
  });
});

describe('leftovers', () => {
  it('are the resources of the stage name no live stack holds, each with its delete command', () => {
    const tagged = [
      { arn: 'arn:aws:dynamodb:eu-west-1:1:table/StackControlPlane-prod-DataTable-OLD', stackId: 'old' },
      { arn: 'arn:aws:dynamodb:eu-west-1:1:table/StackControlPlane-prod-DataTable-NEW', stackId: 'live' },
      { arn: 'arn:aws:s3:::stackcontrolplane-prod-exportsarchives-old', stackId: 'old' },
      { arn: 'arn:aws:kms:eu-west-1:1:key/1234', stackId: 'old' },
    ];
    expect(leftovers(tagged, 'live')).toEqual([
      {
        arn: tagged[0]?.arn,
        kind: 'DynamoDB table',
        delete: 'aws dynamodb delete-table --table-name StackControlPlane-prod-DataTable-OLD',
      },
      {
        arn: tagged[2]?.arn,
        kind: 'S3 bucket',
        delete: 'aws s3 rb s3://stackcontrolplane-prod-exportsarchives-old --force',
      },
      {
        arn: tagged[3]?.arn,
        kind: 'KMS key',
        delete: 'aws kms schedule-key-deletion --key-id 1234 --pending-window-in-days 7',
      },
    ]);
    // A deleted stage: everything of its name is left over.
    expect(leftovers(tagged, undefined)).toHaveLength(4);
  });
});

describe('the context "capacity"', () => {
  it('reads locations and places per Plan, and says what is wrong in one line', () => {
    expect(parseCapacity('eu-central-1a: standard=20 plus=10; eu-west-1a: pro=4')).toEqual([
      { location: 'eu-central-1a', plan: 'standard', total: 20 },
      { location: 'eu-central-1a', plan: 'plus', total: 10 },
      { location: 'eu-west-1a', plan: 'pro', total: 4 },
    ]);
    expect(() => parseCapacity('eu-west-1a: gold=4')).toThrow(/the Plan must be one of standard, plus, pro/);
    expect(() => parseCapacity('eu-west-1a: standard=-1')).toThrow(/whole number/);
    expect(() => parseCapacity('eu-west-1a: standard=0')).toThrow(/no place to any Plan/);
    expect(() => parseCapacity('standard=4')).toThrow(/is not "<location>: <plan>=<places> \.\.\."/);
  });
});

describe('the smoke checks', () => {
  const site = 'https://console.test';
  /** A site that answers as a deployed one does, but for what `broken` names. */
  const fakeSite = (broken: { headers?: boolean; webhook?: number } = {}) =>
    (async (url: string | URL | Request, init?: RequestInit) => {
      const path = String(url).slice(site.length);
      if (path === '/')
        return new Response('<html>', {
          headers: {
            'content-type': 'text/html',
            ...(broken.headers
              ? {}
              : {
                  'content-security-policy':
                    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
                  'x-content-type-options': 'nosniff',
                  'referrer-policy': 'same-origin',
                  'strict-transport-security': 'max-age=63072000; includeSubDomains',
                }),
          },
        });
      if (path === '/v1/me') return new Response('{}', { status: 401 });
      const signature = new Headers(init?.headers).get('stripe-signature');
      if (!signature) return new Response('{}', { status: 400 });
      return new Response('{}', { status: broken.webhook ?? 200 });
    }) as typeof fetch;
  const target = (overrides: Partial<SmokeTarget> = {}): SmokeTarget => ({
    label: 'stage prod',
    site,
    flag: '--stage prod',
    webhookSecret: async () => 'whsec_x',
    now: () => new Date('2026-05-01T00:00:00Z'),
    sweepsCompleted: async () => 1,
    placeablePlans: async () => ['standard'],
    placeholderSecrets: async () => ({ read: 4, placeholders: [] }),
    sender: async () => ({ verified: true, identity: 'x.test' }),
    alarms: async () => ({ ringing: [], of: 11 }),
    ...overrides,
  });

  it('a stage that works: every check holds', async () => {
    const results = await runSmoke(target(), { fetch: fakeSite() });
    expect(results.map((result) => result.verdict)).toEqual(Array(9).fill('holds'));
    expect(smokeReport('stage prod', results)).toContain('smoke: 9 of 9 checks hold, none misses.');
  });

  it('each miss is named with the checklist command that fixes it', async () => {
    const results = await runSmoke(
      target({
        placeablePlans: async () => [],
        placeholderSecrets: async () => ({ read: 4, placeholders: ['processor-api-key'] }),
        sender: async () => ({ verified: false, identity: 'x.test' }),
        alarms: async () => ({ ringing: ['NoSweepCompleted'], of: 11 }),
        sweepsCompleted: async () => 0,
      }),
      { fetch: fakeSite({ headers: true, webhook: 500 }), sweepWaitMs: 0 },
    );
    expect(results.filter((result) => result.verdict === 'MISSES').map((result) => result.check)).toEqual([
      'console page and its security headers',
      "webhook accepts an event signed with the stage's secret",
      'a sweep completed in the last two minutes',
      'capacity registered in the Home Region',
      'no secret left as a placeholder',
      'sender identity verified (SES)',
      'no alarm in ALARM',
    ]);
    const report = smokeReport('stage prod', results);
    expect(report).toContain('npm run ops -- capacity seed --stage prod');
    expect(report).toContain('npm run ops -- secrets status --stage prod');
    expect(report).toContain('npm run ops -- secrets set processor-webhook-secret --stage prod');
  });

  it("signs as the processor does (the emulator's own signature, which the webhook verifies)", () => {
    expect(processorSignature('{"id":"evt_1"}', 'whsec_x', 1_700_000_000)).toBe(
      ProcessorEmulator.signature('{"id":"evt_1"}', 'whsec_x', 1_700_000_000),
    );
  });

  it('a stage target reads the outputs through the cloud; a never-deployed stage stops before any check', async () => {
    const { cloud } = fakeCloud({ stackId: 'id', status: 'CREATE_COMPLETE', outputs: allOutputs });
    const found = await stageTarget('prod', () => cloud, cdkJson());
    expect(found.site).toBe('value-of-ConsoleUrl');
    expect(found.flag).toBe('--stage prod');
    await expect(stageTarget('prod', () => fakeCloud(undefined).cloud, cdkJson())).rejects.toThrow(
      /never deployed/,
    );
  });
});

describe('bad input at the command line: one line, exit 1, nothing written', () => {
  it.each([
    [['secrets', 'status', '--stage', 'nope'], 'Unknown stage "nope"'],
    [['capacity', 'seed', '--stage', 'Bad_Name'], '"Bad_Name" is not a stage name'],
    [['secrets', 'set', 'processor-api-key'], "secrets set writes a deployed stage's secret: pass --stage"],
    [['leftovers', '--stage', 'nope'], 'Unknown stage "nope"'],
  ])('npm run ops -- %j', async (args, message) => {
    const { code, stderr, stdout } = await runOps(args);
    expect(code).toBe(1);
    expect(stderr.trim().split('\n')).toEqual([expect.stringContaining(message)]);
    expect(stdout).toBe('');
  });
});
