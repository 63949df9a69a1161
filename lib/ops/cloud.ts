/**
 * What the ops CLI and the smoke test ask of a deployed stage's AWS account, behind one small
 * interface: the tests give a fake (test/unit/ops-stage.test.ts), the commands the real one below.
 * Every answer is ours: no SDK shape leaves this file.
 */
export interface StageCloud {
  /** The stack's outputs by name, and its id; undefined when the region has no such stack. */
  stack(
    stackName: string,
  ): Promise<{ stackId: string; status: string; outputs: Record<string, string> } | undefined>;
  readSecret(arn: string): Promise<string>;
  writeSecret(arn: string, value: string): Promise<void>;
  /** Whether SES lets the sender's address, or its domain, send (verified for sending). */
  senderVerified(address: string): Promise<{ verified: boolean; identity: string }>;
  /** Which of these alarms are in ALARM now. */
  alarmsInAlarm(names: readonly string[]): Promise<string[]>;
  /** Completed sweeps since `since` (the SweepCompleted metric, functions/ports/metrics.ts). */
  sweepsCompletedSince(since: Date, until: Date): Promise<number>;
  /** Resources CloudFormation tagged as the stack's (any stack of that name, live or deleted). */
  taggedResources(stackName: string): Promise<{ arn: string; stackId: string | undefined }[]>;
}

/** No credentials, or none the region accepts: the message says so in one line. */
export class NoCredentials extends Error {
  override readonly name = 'NoCredentials';
}

/** An AWS SDK client package the lead has still to add to package.json: said in one line. */
export class MissingClient extends Error {
  override readonly name = 'MissingClient';
}

const CREDENTIAL_ERRORS = new Set([
  'CredentialsProviderError',
  'ExpiredToken',
  'ExpiredTokenException',
  'InvalidClientTokenId',
  'UnrecognizedClientException',
  'InvalidSignatureException',
  'SignatureDoesNotMatch',
]);

/** Whether an SDK error means "no usable credentials" rather than anything about the stage. */
export const isCredentialError = (error: unknown): boolean => {
  const name = (error as { name?: string } | null)?.name ?? '';
  return CREDENTIAL_ERRORS.has(name) || /could not load credentials/i.test(String((error as Error)?.message));
};

type Send = { send(command: unknown): Promise<Record<string, unknown>> };
type ClientModule = Record<string, new (input?: unknown) => unknown>;

/**
 * Loads an AWS SDK v3 client package by name at run time: only the commands that talk to a
 * deployed stage need it, so the local mode and the tests run without it.
 */
const sdk = async (name: string): Promise<ClientModule> => {
  try {
    return (await import(name)) as ClientModule;
  } catch {
    throw new MissingClient(
      `The ops CLI needs the package ${name} for this command: add it (npm install ${name}).`,
    );
  }
};

const client = async (name: string, clientName: string, region: string): Promise<[ClientModule, Send]> => {
  const module = await sdk(name);
  const Client = module[clientName];
  if (!Client) throw new MissingClient(`${name} has no ${clientName}: update the package.`);
  return [module, new Client({ region }) as Send];
};

const command = (module: ClientModule, name: string, input: unknown) => {
  const Command = module[name];
  if (!Command) throw new MissingClient(`the AWS SDK has no ${name}: update the package.`);
  return new Command(input);
};

/** Calls `run`, turning a credentials failure into NoCredentials. */
const guarded = async <T>(region: string, run: () => Promise<T>): Promise<T> => {
  try {
    return await run();
  } catch (error) {
    if (isCredentialError(error))
      throw new NoCredentials(
        `No usable AWS credentials for region ${region} (${(error as Error).message.split('\n')[0]}): set AWS_PROFILE or AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY for the stage's account.`,
      );
    throw error;
  }
};

/** The real account, through the AWS SDK v3 and the ambient credentials. */
export const awsStageCloud = (region: string): StageCloud => ({
  stack: (stackName) =>
    guarded(region, async () => {
      const [module, cloudFormation] = await client(
        '@aws-sdk/client-cloudformation',
        'CloudFormationClient',
        region,
      );
      try {
        const answer = await cloudFormation.send(
          command(module, 'DescribeStacksCommand', { StackName: stackName }),
        );
        const [stack] = (answer.Stacks ?? []) as {
          StackId?: string;
          StackStatus?: string;
          Outputs?: { OutputKey?: string; OutputValue?: string }[];
        }[];
        if (!stack) return undefined;
        return {
          stackId: stack.StackId ?? '',
          status: stack.StackStatus ?? '',
          outputs: Object.fromEntries(
            (stack.Outputs ?? []).map((output) => [output.OutputKey ?? '', output.OutputValue ?? '']),
          ),
        };
      } catch (error) {
        // CloudFormation answers a stack it does not have with a ValidationError naming it.
        if (/does not exist/.test(String((error as Error).message))) return undefined;
        throw error;
      }
    }),
  readSecret: (arn) =>
    guarded(region, async () => {
      // Loaded when used: the ops CLI's local commands never pay for these clients.
      const { GetSecretValueCommand, SecretsManagerClient } = await import('@aws-sdk/client-secrets-manager');
      const secrets = new SecretsManagerClient({ region });
      const { SecretString } = await secrets.send(new GetSecretValueCommand({ SecretId: arn }));
      return SecretString ?? '';
    }),
  writeSecret: (arn, value) =>
    guarded(region, async () => {
      const { PutSecretValueCommand, SecretsManagerClient } = await import('@aws-sdk/client-secrets-manager');
      const secrets = new SecretsManagerClient({ region });
      await secrets.send(new PutSecretValueCommand({ SecretId: arn, SecretString: value }));
    }),
  senderVerified: (address) =>
    guarded(region, async () => {
      const { GetEmailIdentityCommand, SESv2Client } = await import('@aws-sdk/client-sesv2');
      const ses = new SESv2Client({ region });
      const domain = address.split('@')[1] ?? address;
      for (const identity of [address, domain]) {
        try {
          const answer = await ses.send(new GetEmailIdentityCommand({ EmailIdentity: identity }));
          if (answer.VerifiedForSendingStatus) return { verified: true, identity };
        } catch (error) {
          if ((error as { name?: string }).name !== 'NotFoundException') throw error;
        }
      }
      return { verified: false, identity: domain };
    }),
  alarmsInAlarm: (names) =>
    guarded(region, async () => {
      if (names.length === 0) return [];
      const [module, cloudWatch] = await client('@aws-sdk/client-cloudwatch', 'CloudWatchClient', region);
      const ringing: string[] = [];
      // DescribeAlarms takes at most 100 names at a time.
      for (let start = 0; start < names.length; start += 100) {
        const answer = await cloudWatch.send(
          command(module, 'DescribeAlarmsCommand', {
            AlarmNames: names.slice(start, start + 100),
            StateValue: 'ALARM',
          }),
        );
        for (const alarm of (answer.MetricAlarms ?? []) as { AlarmName?: string }[])
          if (alarm.AlarmName) ringing.push(alarm.AlarmName);
      }
      return ringing;
    }),
  sweepsCompletedSince: (since, until) =>
    guarded(region, async () => {
      const [module, cloudWatch] = await client('@aws-sdk/client-cloudwatch', 'CloudWatchClient', region);
      const answer = await cloudWatch.send(
        command(module, 'GetMetricStatisticsCommand', {
          Namespace: 'StackControlPlane',
          MetricName: 'SweepCompleted',
          Dimensions: [{ Name: 'service', Value: 'stack-control-plane' }],
          StartTime: since,
          EndTime: until,
          Period: 60,
          Statistics: ['Sum'],
        }),
      );
      return ((answer.Datapoints ?? []) as { Sum?: number }[]).reduce(
        (sum, point) => sum + (point.Sum ?? 0),
        0,
      );
    }),
  taggedResources: (stackName) =>
    guarded(region, async () => {
      const [module, tagging] = await client(
        '@aws-sdk/client-resource-groups-tagging-api',
        'ResourceGroupsTaggingAPIClient',
        region,
      );
      const found: { arn: string; stackId: string | undefined }[] = [];
      let token: string | undefined;
      do {
        const answer = await tagging.send(
          command(module, 'GetResourcesCommand', {
            TagFilters: [{ Key: 'aws:cloudformation:stack-name', Values: [stackName] }],
            ...(token ? { PaginationToken: token } : {}),
          }),
        );
        for (const mapping of (answer.ResourceTagMappingList ?? []) as {
          ResourceARN?: string;
          Tags?: { Key?: string; Value?: string }[];
        }[])
          found.push({
            arn: mapping.ResourceARN ?? '',
            stackId: mapping.Tags?.find((tag) => tag.Key === 'aws:cloudformation:stack-id')?.Value,
          });
        token = (answer.PaginationToken as string | undefined) || undefined;
      } while (token);
      return found;
    }),
});
