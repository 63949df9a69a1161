import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { placeablePlans } from '../../functions/core/placement.ts';
import { secretPlaceholderProblem } from '../../functions/core/secret-shape.ts';
import { listInventory } from '../../functions/store/capacity.ts';
import { REPO_ROOT } from '../constants.ts';
import { HOME_REGION, STAGE_SECRETS, type StageSecret } from '../deployment.ts';
import { localTimeOf } from '../local-data.ts';
import { awsStageCloud, MissingClient, NoCredentials, type StageCloud } from './cloud.ts';
import { runSmoke, type SmokeTarget, smokeReport } from './smoke-checks.ts';
import { deployedStage, StageProblem, secretStates, stageEnvironment } from './stage.ts';

/**
 * `npm run smoke -- --stage <stage> | --url <console url> | --local`: after a deploy (or against
 * `npm start`), prints a table of what holds and exits 1 on any miss, with what to do
 * (lib/ops/smoke-checks.ts). A stage is found as the ops CLI finds it: cdk.json's region, then
 * CloudFormation's outputs (lib/ops/stage.ts).
 */
const USAGE = `Usage: npm run smoke -- --stage <stage>      a deployed stage (AWS credentials of its account)
       npm run smoke -- --url <console url>   only what HTTP shows (the site, the API, the webhook's refusal)
       npm run smoke -- --local [--data-dir .local]   the local control plane of npm start`;

/** Bad input: one line, exit 1, nothing written. */
const stop = (message: string): never => {
  console.error(message);
  process.exit(1);
};

const homePlaceable = async (now: Date) => placeablePlans(await listInventory(HOME_REGION), HOME_REGION, now);

/** The local control plane `npm start` left in `dataDirectory` (its endpoints.json). */
export const localTarget = (dataDirectory: string): SmokeTarget => {
  const file = path.join(dataDirectory, 'endpoints.json');
  if (!existsSync(file)) stop(`No local control plane found (${file}): start it with \`npm start\` first.`);
  const { api, environment } = JSON.parse(readFileSync(file, 'utf8')) as {
    api: string;
    environment: Record<string, string>;
  };
  Object.assign(process.env, environment);
  const now = () => localTimeOf(dataDirectory);
  return {
    label: `the local control plane ${api}`,
    site: api.replace(/\/$/, ''),
    flag: '--local',
    webhookSecret: async () => environment.PROCESSOR_WEBHOOK_SECRET,
    now,
    sweepsCompleted: async (withinMs) => {
      const answer = await fetch(`${api.replace(/\/$/, '')}/_local/sweep`);
      const { lastCompletedAt } = (await answer.json()) as { lastCompletedAt: string | null };
      return lastCompletedAt !== null && Date.now() - Date.parse(lastCompletedAt) <= withinMs ? 1 : 0;
    },
    placeablePlans: () => homePlaceable(now()),
    placeholderSecrets: async () => {
      const present = Object.values(STAGE_SECRETS).filter(
        ({ variable }) => environment[variable] !== undefined,
      );
      return {
        read: present.length,
        placeholders: present
          .filter(({ variable }) => secretPlaceholderProblem(variable, environment[variable] ?? ''))
          .map(({ variable }) => variable),
      };
    },
  };
};

/** A deployed stage: its outputs, its secrets, SES and CloudWatch, through `cloud`. */
export const stageTarget = async (
  stageName: string,
  cloudOf: (region: string) => StageCloud,
  cdkJson?: string,
): Promise<SmokeTarget> => {
  const { stage, cloud } = await deployedStage(stageName, cloudOf, cdkJson);
  Object.assign(process.env, stageEnvironment(stage));
  const readSecret = (name: StageSecret) => cloud.readSecret(stage.outputs[STAGE_SECRETS[name].output]);
  return {
    label: `stage ${stage.stage} (${stage.stackName}, ${stage.region})`,
    site: stage.outputs.consoleUrl.replace(/\/$/, ''),
    flag: `--stage ${stage.stage}`,
    webhookSecret: () => readSecret('processor-webhook-secret'),
    now: () => new Date(),
    sweepsCompleted: (withinMs) => {
      const until = new Date();
      return cloud.sweepsCompletedSince(new Date(until.getTime() - withinMs), until);
    },
    placeablePlans: () => homePlaceable(new Date()),
    placeholderSecrets: async () => {
      const states = await secretStates(readSecret);
      return { read: states.length, placeholders: states.filter((s) => !s.set).map((s) => s.name) };
    },
    sender: () => cloud.senderVerified(stage.outputs.mailFrom),
    alarms: async () => {
      const names = stage.outputs.alarmNames.split(',').filter(Boolean);
      return { ringing: await cloud.alarmsInAlarm(names), of: names.length };
    },
  };
};

/** The site only, by its URL: what HTTP shows. */
export const urlTarget = (url: string): SmokeTarget => {
  if (!/^https?:\/\/[^/]+/.test(url))
    stop(`--url must be the console's URL (the output ConsoleUrl), got "${url}".`);
  return {
    label: url,
    site: url.replace(/\/$/, ''),
    flag: `--url ${url}`,
    webhookSecret: async () => undefined,
    now: () => new Date(),
  };
};

const main = async () => {
  let values: { stage?: string; url?: string; local?: boolean; 'data-dir'?: string; help?: boolean };
  try {
    ({ values } = parseArgs({
      options: {
        stage: { type: 'string' },
        url: { type: 'string' },
        local: { type: 'boolean', default: false },
        'data-dir': { type: 'string', default: path.join(REPO_ROOT, '.local') },
        help: { type: 'boolean', default: false },
      },
    }));
  } catch (error) {
    return stop(`${(error as Error).message}\n${USAGE}`);
  }
  if (values.help) {
    console.log(USAGE);
    return;
  }
  const chosen = [values.stage !== undefined, values.url !== undefined, values.local === true].filter(
    Boolean,
  );
  if (chosen.length !== 1) stop(`Say what to check: exactly one of --stage, --url, --local.\n${USAGE}`);
  const started = Date.now();
  const target = values.local
    ? localTarget(values['data-dir'] ?? path.join(REPO_ROOT, '.local'))
    : values.url !== undefined
      ? urlTarget(values.url)
      : await stageTarget(values.stage ?? '', awsStageCloud);
  const results = await runSmoke(target);
  console.log(smokeReport(target.label, results));
  console.log(`(${((Date.now() - started) / 1000).toFixed(1)} s)`);
  process.exit(results.some((result) => result.verdict === 'MISSES') ? 1 : 0);
};

if (import.meta.main)
  main().catch((error: unknown) => {
    if (error instanceof StageProblem || error instanceof NoCredentials || error instanceof MissingClient)
      stop(error.message);
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
