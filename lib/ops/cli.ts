import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { grantMoneyBack } from '../../functions/billing/money-back.ts';
import {
  checkQuantities,
  type TenantQuantities,
  UnknownSlug,
} from '../../functions/billing/quantity-check.ts';
import { freeSlots } from '../../functions/core/placement.ts';
import { isPlanValue, PLAN_VALUES, PLANS } from '../../functions/core/plans.ts';
import { priceNameText } from '../../functions/core/quantities.ts';
import { Refusal } from '../../functions/core/refusal.ts';
import { operatorPlanChange } from '../../functions/plan-changes/operator.ts';
import { syncCatalog } from '../../functions/ports/processor/catalog.ts';
import { processorQueueStatus, sqsQueueCounts } from '../../functions/ports/queue.ts';
import { type OutboxEntry, outboxTrouble, retryEmail } from '../../functions/reconciler/outbox.ts';
import { listInventory, setCapacityTotal } from '../../functions/store/capacity.ts';
import { REPO_ROOT } from '../constants.ts';
import { armCrashPoints } from '../crash-points.ts';
import {
  declaredStage,
  HOME_REGION,
  isStageSecret,
  parseCapacity,
  STAGE_SECRETS,
  type StageSecret,
} from '../deployment.ts';
import { localTimeOf, standInQueueCounts } from '../local-data.ts';
import { awsStageCloud, MissingClient, NoCredentials, type StageCloud } from './cloud.ts';
import { refundFailure } from './refund-exit.ts';
import {
  checkedSecretValue,
  type DeployedStage,
  deployedStage,
  leftovers,
  StageProblem,
  secretStates,
  stageEnvironment,
} from './stage.ts';

/**
 * `npm run ops -- <command>`: operator actions. By default against the running local control
 * plane (`npm start`); with `--stage <stage>` against a deployed stage, found by its stack's
 * outputs (lib/ops/stage.ts) with the ambient AWS credentials; with `--table <name>` against a
 * deployed table (and PROCESSOR_API_KEY for processor:sync, refund and quantities check).
 *
 * Each command is one row of COMMANDS: its name, its usage and help (the help text is made of the
 * rows, in their order), what it runs against, and its handler.
 */

/** The options every command may be given (parseArgs reads them all, each command the ones it needs). */
const OPTIONS = {
  region: { type: 'string', default: 'eu' },
  location: { type: 'string' },
  plan: { type: 'string' },
  total: { type: 'string' },
  table: { type: 'string' },
  create: { type: 'boolean', default: false },
  slug: { type: 'string' },
  email: { type: 'string' },
  'requested-at': { type: 'string' },
  ids: { type: 'boolean', default: false },
  stage: { type: 'string' },
  'data-dir': { type: 'string', default: path.join(REPO_ROOT, '.local') },
  help: { type: 'boolean', default: false },
} as const;

type Values = ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>>['values'];

interface Target {
  label: string;
  /** The local control plane of a data folder (its clock and its SQS stand-in), not a deployed table. */
  local: boolean;
  now: Date;
}

type StagedTarget = Target & { stage: DeployedStage; cloud: StageCloud };

/** What a command's handler is given: the options, the word after its name, and its target. */
interface CommandRun {
  values: Values;
  /** The positional word after the command's two words (a change id, an email key, a secret's name). */
  argument: string | undefined;
  /** The target's label for the output lines, such as "local control plane http://..." or "stage prod". */
  target: string;
  local: boolean;
  /** The target's time: the local control plane's clock, or the wall clock. */
  now: Date;
  /** The deployed stage, when --stage named one. */
  staged: StagedTarget | undefined;
}

interface OpsCommand {
  /** The words that call it, such as `capacity set`. */
  name: string;
  /** What follows the name in the help, such as `--slug <slug> <changeId>`. */
  usage?: string;
  /** The help's lines: the first beside the name when the name and usage are short, the rest below. */
  help: string[];
  /** The first word alone calls this one too (`capacity` is `capacity list`). */
  bare?: true;
  /** `account`: reads the AWS account, not a target (no local control plane, table or stage's outputs). */
  target?: 'account';
  /** Only a deployed stage has what it writes: without --stage, this line, exit 1, before anything is read. */
  stageOnly?: string;
  run: (run: CommandRun) => Promise<void>;
}

const COMMANDS: OpsCommand[] = [
  {
    name: 'capacity set',
    usage: '--region eu --location <location> --plan <standard|plus|pro> --total <n> [--create]',
    help: ['--create: add a location the region does not have yet (otherwise refused)'],
    run: async ({ values, target, now }) => {
      const { region, location, plan, total } = values;
      if (!location) fail('--location is required');
      if (!isPlanValue(plan)) fail(`--plan must be one of ${PLAN_VALUES.join(', ')}`);
      const count = Number(total);
      if (!Number.isInteger(count) || count < 0) fail('--total must be a whole number, 0 or more');
      const inventory = await listInventory(region);
      const known = [...new Set(inventory.slots.map((slot) => slot.location))].sort();
      // Places in use and places held (open checkouts, added Stacks, Plan Changes) were promised.
      const current = inventory.slots.find((slot) => slot.location === location && slot.plan === plan);
      const held = inventory.reservations.filter((r) => r.location === location && r.plan === plan).length;
      if (current && count < current.used + held)
        fail(
          `${location}/${plan} has ${current.used} places in use and ${held} held (${target}): a total below ${current.used + held} would take back places already promised. Nothing was changed.`,
        );
      if (!known.includes(location as string) && !values.create) {
        fail(
          `Unknown location "${location}" in region ${region} (${target}): ${
            known.length ? `its locations are ${known.join(', ')}` : 'it has no locations yet'
          }. Check the name, or pass --create to add a new location. Nothing was changed.`,
        );
      }
      await setCapacityTotal(
        { region, location: location as string, plan: plan as (typeof PLAN_VALUES)[number], total: count },
        now,
      );
      console.log(`Set ${region}/${location}/${plan} total to ${count} (${target}).`);
      await printCapacity(region, now);
    },
  },
  {
    name: 'capacity list',
    usage: '[--region eu]',
    help: [],
    bare: true,
    run: async ({ values, target, now }) => {
      console.log(`Capacity of ${values.region} (${target}):`);
      await printCapacity(values.region, now);
    },
  },
  {
    name: 'processor:sync',
    help: [
      'create or find the Plan products, prices (by lookup key) and the portal configuration;',
      'a price change: PLAN_PRICES=plus=5500 creates the new price, which takes the lookup key',
      'over (Stacks under the Founding Price Lock keep theirs; the others move at their next look)',
    ],
    run: async ({ target }) => {
      const synced = await syncCatalog();
      for (const result of synced.plans) {
        console.log(`${result.plan.padEnd(9)} ${result.priceId}${result.created ? '  (created)' : ''}`);
      }
      console.log(`Portal configuration: ${synced.portal}.`);
      console.log(`Catalog and portal configuration in sync (${target}).`);
    },
  },
  {
    name: 'refund',
    usage: '--slug <slug> --email <address> [--requested-at <ISO time>]',
    help: [
      "grant a tenant's money-back refund (its email to support: the address it wrote from,",
      'and when support received it; default now). Deployed: --table and PROCESSOR_API_KEY',
    ],
    run: async ({ values, target, now }) => {
      const { slug, email } = values;
      if (!slug) fail('--slug is required');
      if (!email) fail('--email is required (the address the tenant wrote to support from)');
      const requestedAt = values['requested-at'] === undefined ? now : new Date(values['requested-at']);
      if (Number.isNaN(requestedAt.getTime()))
        fail('--requested-at must be an ISO 8601 time, such as 2026-05-01T09:30:00Z');
      try {
        const grant = await grantMoneyBack({
          slug: slug as string,
          email: email as string,
          requestedAt,
          now,
        });
        const amount = `${(grant.refundedAmount / 100).toFixed(2)} ${grant.currency.toUpperCase()}`;
        console.log(
          `Money-back refund granted to ${grant.slug} (${target})${grant.continued ? ', continuing the grant an earlier run started' : ''}.`,
        );
        console.log(
          `Refunded: ${amount} in ${grant.refunds} refund(s): the payments of every invoice paid from ${grant.window.from} to ${grant.window.until}.`,
        );
        console.log('The subscription is cancelled at once (no proration); its open invoices are voided.');
        console.log(
          'Next: the sweep moves the tenant to decommissioning (reason refund_granted) with all its Stacks, torn down after the export window, and sends the confirmation email.',
        );
      } catch (error) {
        const failed = refundFailure(error);
        if (!failed) throw error;
        console.error(failed.line);
        process.exit(failed.exitCode);
      }
    },
  },
  {
    name: 'quantities check',
    usage: '[--slug <slug>] [--ids]',
    help: [
      "read-only: compare each tenant's subscription item quantities at the processor with the",
      'Stacks the table bills at each price (every tenant with a subscription, by a paginated',
      'table scan, or one tenant). Exit 0: no drift; 3: a drift; 1: a tenant could not be checked.',
      "--ids adds the processor's price ids. Deployed: --table and PROCESSOR_API_KEY",
    ],
    run: async ({ values, target, now }) => {
      const showIds = values.ids;
      const lines = (result: TenantQuantities) =>
        result.drift
          .map(
            (entry) =>
              `${priceNameText(entry.name, planNames)}${showIds ? ` [${entry.priceId}]` : ''}: table ${entry.expected}, processor ${entry.actual}`,
          )
          .join('; ');
      const who = (result: TenantQuantities) => `${result.slug ?? '(no slug)'} (${result.tenantId})`;
      try {
        const run = await checkQuantities(
          { ...(values.slug ? { slug: values.slug } : {}), now },
          (result) => {
            if (result.status === 'drift')
              console.log(
                `DRIFT ${who(result)}: ${lines(result)}${result.reason ? ` (${result.reason})` : ''}`,
              );
            else if (result.status === 'unsettled')
              console.log(`UNSETTLED ${who(result)}: ${lines(result)} (${result.reason})`);
            else if (
              result.status === 'not_checked' &&
              (values.slug || result.reason?.startsWith('the processor'))
            )
              console.log(`NOT CHECKED ${who(result)}: ${result.reason}`);
            else if (values.slug)
              console.log(`OK ${who(result)}: ${result.stacks} Stack(s) billed, quantities match`);
          },
        );
        const source =
          run.source.kind === 'scan'
            ? `every tenant with a subscription, by a table scan of ${run.source.pages} page(s)`
            : `the tenant ${run.source.slug}`;
        console.log(
          `Quantity check of ${source} (${target}): ${run.checked} checked, ${run.drifting} with drift, ${run.unsettled} unsettled, ${run.notChecked} not checked${run.failed ? ` (${run.failed} unreadable at the processor)` : ''}.`,
        );
        if (run.drifting > 0) process.exit(3);
        if (run.failed > 0) process.exit(1);
      } catch (error) {
        if (!(error instanceof UnknownSlug)) throw error;
        console.error(`${error.message} (${target}). Nothing was checked.`);
        process.exit(2);
      }
    },
  },
  {
    name: 'plan-change show',
    usage: '--slug <slug> <changeId>',
    help: [
      "a tenant's Plan Change as the tenant sees it (its reason code and text), and the operator",
      "detail no tenant sees: the Dispatcher's own words when a step failed, the workflow's step.",
      'Read-only. Exit 1: no such tenant or change. Deployed: --table',
    ],
    run: async ({ values, argument, target }) => {
      const { slug } = values;
      if (!slug) fail('--slug is required (the tenant whose Plan Change it is)');
      if (!argument) fail('the change id is required, such as pc_0mwx4qazo6ce2ee3b1b64');
      try {
        const {
          tenantId,
          tenantView: view,
          operator,
        } = await operatorPlanChange({
          slug: slug as string,
          changeId: argument as string,
        });
        console.log(
          `Plan Change ${view.changeId} of ${slug} (${tenantId}), Stack ${view.stackId}: ${view.currentPlan} to ${view.requestedPlan} (${target})`,
        );
        console.log(`Status: ${view.status}; confirmed ${view.confirmedAt}; updated ${view.updatedAt}`);
        console.log(`History: ${view.history.map((entry) => `${entry.status} at ${entry.at}`).join(', ')}`);
        console.log(
          `The tenant is told: ${view.reasonCode ? `${view.reasonCode}: ${view.outcome}` : '(nothing yet: it runs)'}`,
        );
        console.log('Operator detail (never shown to the tenant):');
        console.log(`  Dispatcher's words: ${operator.dispatcherReason ?? '(none reported)'}`);
        if (operator.legacyOutcome)
          console.log(`  Outcome text of an older record: ${operator.legacyOutcome}`);
        console.log(
          `  Workflow step: ${operator.step} since ${operator.stepStartedAt}${operator.stepVersion === null ? '' : `, desired-state version ${operator.stepVersion}`}; region ${operator.region}; billing commit attempts refused: ${operator.commitAttempts}`,
        );
      } catch (error) {
        if (!(error instanceof Refusal)) throw error;
        console.error(`Refused (${error.code}): ${error.message}`);
        process.exit(1);
      }
    },
  },
  {
    name: 'outbox list',
    help: [
      'emails that need an eye: parked as failed after their last attempt (with the last error),',
      'and those being retried after a failed attempt (with the time of the next)',
    ],
    bare: true,
    run: async ({ target }) => {
      const { failed, retrying } = await outboxTrouble();
      const line = (entry: OutboxEntry, when: string) =>
        `  ${entry.key}  to ${entry.to}  "${entry.subject}"  ${entry.attempts}/${entry.attemptLimit} attempts, ${when} ${entry.at ?? '?'}\n    last error: ${entry.lastError ?? '(none recorded)'}`;
      console.log(`Parked as failed (${failed.length}) (${target}):`);
      for (const entry of failed) console.log(line(entry, 'parked'));
      if (failed.length > 0)
        console.log('  Fix the cause (docs/runbook.md, "Email"), then: npm run ops -- outbox retry <key>');
      console.log(`Being retried after a failed attempt (${retrying.length}):`);
      for (const entry of retrying) console.log(line(entry, 'next attempt'));
    },
  },
  {
    name: 'outbox retry',
    usage: '<key>',
    help: ['give a parked email another round of attempts (the next sweep sends it; never a sent one)'],
    run: async ({ argument, target, now }) => {
      if (!argument) fail('the email key is required: copy it from `outbox list`');
      try {
        const entry = await retryEmail(argument as string, now);
        console.log(
          `Email ${entry.key} to ${entry.to} is pending again, with attempts up to ${entry.attemptLimit} (${target}): the next sweep sends it.`,
        );
      } catch (error) {
        if (!(error instanceof Refusal)) throw error;
        console.error(`Refused (${error.code}): ${error.message}`);
        process.exit(1);
      }
    },
  },
  {
    name: 'queue status',
    help: [
      'processor events waiting, in flight, and in the dead-letter queue (local from npm start;',
      '--stage reads the queues; --table: PROCESSOR_EVENTS_QUEUE_URL and PROCESSOR_EVENTS_DLQ_URL)',
    ],
    run: async ({ local }) => {
      // The local SQS stand-in counts in-flight messages as waiting too: read its counts as SQS means them.
      const status = await processorQueueStatus(local ? standInQueueCounts : sqsQueueCounts);
      console.log(`Processor events waiting: ${status.waiting}`);
      console.log(`In flight (received, not yet done): ${status.inFlight}`);
      console.log(
        `In the dead-letter queue: ${status.deadLettered}${status.deadLettered > 0 ? '  (failed 5 times; see docs/runbook.md)' : ''}`,
      );
    },
  },
  {
    name: 'capacity seed',
    help: [
      `write the stage's initial capacity (cdk.json, context "capacity") where the Home Region has`,
      'no such place yet; places already set are left as they are',
    ],
    stageOnly:
      'capacity seed writes a stage\'s context "capacity": pass --stage <stage> (npm start seeds lib/local/capacity.json itself).',
    run: async ({ target, now, staged }) => {
      const capacity = staged?.stage.capacity;
      if (!capacity)
        stop(
          `Stage ${staged?.stage.stage} has no context "capacity" in cdk.json: set it under "stages"."${staged?.stage.stage}" (e.g. "eu-central-1a: standard=20 plus=10 pro=4"), or use capacity set. Nothing was changed.`,
        );
      let slots: ReturnType<typeof parseCapacity> = [];
      try {
        slots = parseCapacity(capacity as string);
      } catch (error) {
        stop(`context "capacity" ${(error as Error).message}: fix it in cdk.json. Nothing was changed.`);
      }
      const inventory = await listInventory(HOME_REGION);
      let written = 0;
      for (const slot of slots) {
        if (inventory.slots.some((have) => have.location === slot.location && have.plan === slot.plan))
          continue;
        await setCapacityTotal({ region: HOME_REGION, ...slot }, now);
        written++;
      }
      console.log(
        `Seeded ${written} of ${slots.length} place(s) of the context "capacity" in ${HOME_REGION} (${target}); ${slots.length - written} already set, left as they are.`,
      );
      await printCapacity(HOME_REGION, now);
    },
  },
  {
    name: 'secrets status',
    help: ['which of the four secrets still hold their placeholder (never a value). Deployed: --stage'],
    bare: true,
    run: async ({ target, staged }) => {
      const read = async (name: StageSecret): Promise<string | undefined> =>
        staged
          ? staged.cloud.readSecret(staged.stage.outputs[STAGE_SECRETS[name].output])
          : process.env[STAGE_SECRETS[name].variable];
      const states = await secretStates(read);
      console.log(`Secrets of ${target}:`);
      for (const state of states)
        console.log(
          `  ${state.name.padEnd(26)} ${state.absent ? '(not in this environment)' : state.set ? 'set' : `PLACEHOLDER: ${state.problem}`}`,
        );
      const left = states.filter((state) => !state.set && !state.absent);
      if (left.length > 0)
        console.log(
          `Set each: npm run ops -- secrets set <name> ${staged ? `--stage ${staged.stage.stage}` : ''} < file-holding-the-value`,
        );
    },
  },
  {
    name: 'secrets set',
    usage: '<name>',
    help: [
      'write one secret from standard input (checked first: a placeholder or a value of the wrong',
      `shape is refused, nothing written): ${Object.keys(STAGE_SECRETS).join(', ')}. --stage`,
    ],
    stageOnly:
      "secrets set writes a deployed stage's secret: pass --stage <stage> (the local ones are the stand-ins').",
    run: async ({ argument, target, staged }) => {
      if (!isStageSecret(argument))
        fail(`the secret's name is required: one of ${Object.keys(STAGE_SECRETS).join(', ')}`);
      const name = argument as StageSecret;
      const value = checkedSecretValue(name, await readStdin());
      await staged?.cloud.writeSecret(staged.stage.outputs[STAGE_SECRETS[name].output], value);
      console.log(
        `Set ${name} of ${target}: the functions read it within 5 minutes (SECRET_MAX_AGE_MINUTES), no deploy needed.`,
      );
    },
  },
  {
    name: 'leftovers',
    usage: '--stage <s>',
    help: [
      "what a failed first deploy or a deleted stage left behind (resources tagged with the stage's",
      'stack name that no live stack holds), with the command that deletes each. Read-only',
    ],
    target: 'account',
    run: async ({ values }) => {
      if (values.stage === undefined) fail('leftovers needs --stage <stage>');
      const stage = declaredStageOrStop(values.stage as string);
      const cloud = awsStageCloud(stage.region);
      const live = await cloud.stack(stage.stackName);
      const liveId = live && live.status !== 'DELETE_COMPLETE' ? live.stackId : undefined;
      const left = leftovers(await cloud.taggedResources(stage.stackName), liveId);
      console.log(
        `Stage ${stage.stage} (${stage.stackName}, ${stage.region}): ${live ? `stack ${live.status}` : 'no stack'}; ${left.length} resource(s) of its name that no live stack holds.`,
      );
      for (const resource of left)
        console.log(`  ${resource.kind.padEnd(15)} ${resource.arn}\n    delete: ${resource.delete}`);
      if (left.length > 0)
        console.log(
          'Delete them only if you mean to lose what they hold (a table or key of a deleted stage is its data).',
        );
    },
  },
];

/** The column where a command's help starts, and the indent of its further lines. */
const HELP_COLUMN = 26;

const helpOf = (command: OpsCommand): string[] => {
  const head = `  ${command.name}${command.usage ? ` ${command.usage}` : ''}`;
  const [first, ...more] = command.help;
  const indent = ' '.repeat(HELP_COLUMN);
  const top =
    first === undefined
      ? [head]
      : head.length <= HELP_COLUMN - 2
        ? [`${head.padEnd(HELP_COLUMN)}${first}`]
        : [head, `${indent}${first}`];
  return [...top, ...more.map((line) => `${indent}${line}`)];
};

const USAGE = `Usage: npm run ops -- <command> [options]

${COMMANDS.flatMap(helpOf).join('\n')}

Target: the local control plane started by \`npm start\` (reads .local/endpoints.json), or a
deployed stage with --stage <stage> (its region from cdk.json, its table, queues and secrets from its
stack's outputs; AWS credentials from the environment), or a deployed table with --table <TableName>.
Against the local control plane, "now" is its clock (moved by /_local/clock/advance), not the wall clock.`;

/** The command the first two words call: by its name, or the first word alone for a `bare` one. */
const commandOf = (command: string, subcommand: string | undefined): OpsCommand | undefined =>
  COMMANDS.find((entry) => {
    const [first, second] = entry.name.split(' ');
    if (first !== command) return false;
    if (second === undefined) return subcommand === undefined;
    return subcommand === second || (entry.bare === true && subcommand === undefined);
  });

const fail = (message: string): never => {
  console.error(`${message}\n\n${USAGE}`);
  process.exit(2);
};

/** Bad input about the target (unknown stage, no credentials, never deployed): one line, exit 1, nothing written. */
const stop = (message: string): never => {
  console.error(message);
  process.exit(1);
};

/** The stage's stack, its outputs put where our code reads them (the same names a Lambda of the stage gets). */
const useStage = async (stage: string, cloudOf: (region: string) => StageCloud): Promise<StagedTarget> => {
  const found = await deployedStage(stage, cloudOf);
  Object.assign(process.env, stageEnvironment(found.stage));
  return { label: `stage ${stage}`, local: false, now: new Date(), ...found };
};

const useTarget = (table: string | undefined, dataDirectory: string): Target => {
  if (table) {
    process.env.TABLE_NAME = table;
    return { label: `table ${table}`, local: false, now: new Date() };
  }
  const file = path.join(dataDirectory, 'endpoints.json');
  if (!existsSync(file))
    fail(
      `No local control plane found (${file}): start it with \`npm start\`, or pass --table for a deployed one.`,
    );
  const { api, environment } = JSON.parse(readFileSync(file, 'utf8')) as {
    api: string;
    environment: Record<string, string>;
  };
  Object.assign(process.env, environment);
  // The crash run's named kill points reach the ops CLI too (a refund killed midway).
  armCrashPoints(dataDirectory);
  // The local control plane's time is the wall clock plus the offset it keeps in its data folder.
  return { label: `local control plane ${api}`, local: true, now: localTimeOf(dataDirectory) };
};
const main = async () => {
  const { values, positionals } = parseArgs({ allowPositionals: true, options: OPTIONS });
  const [name, subcommand, argument] = positionals;
  if (values.help || !name) {
    console.log(USAGE);
    return;
  }
  if (values.stage !== undefined && values.table !== undefined)
    fail('--stage and --table name one target: pass one');
  const command = commandOf(name, subcommand) ?? fail(`Unknown command: ${positionals.join(' ')}`);
  const noTarget = { values, argument, target: '', local: false, now: new Date(), staged: undefined };
  if (command.target === 'account') return command.run(noTarget);
  // What only a deployed stage has: said before anything is read.
  if (command.stageOnly !== undefined && values.stage === undefined) stop(command.stageOnly);
  const staged = values.stage === undefined ? undefined : await useStage(values.stage, awsStageCloud);
  const { label: target, local, now } = staged ?? useTarget(values.table, values['data-dir']);
  await command.run({ values, argument, target, local, now, staged });
};

const declaredStageOrStop = (stage: string) => {
  try {
    return declaredStage(stage);
  } catch (error) {
    return stop((error as Error).message);
  }
};

const readStdin = async (): Promise<string> => {
  if (process.stdin.isTTY) console.error('Paste the value, then Ctrl-D:');
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
};

const planNames = Object.fromEntries(PLAN_VALUES.map((plan) => [plan, PLANS[plan].name])) as Record<
  (typeof PLAN_VALUES)[number],
  string
>;

const printCapacity = async (region: string, now: Date) => {
  const { slots, reservations } = await listInventory(region);
  const held = reservations;
  console.log(
    `${'location'.padEnd(20)} ${'plan'.padEnd(9)} ${'total'.padStart(6)} ${'used'.padStart(6)} ${'reserved'.padStart(9)} ${'free'.padStart(6)}`,
  );
  for (const slot of [...slots].sort(
    (a, b) =>
      a.location.localeCompare(b.location) || PLAN_VALUES.indexOf(a.plan) - PLAN_VALUES.indexOf(b.plan),
  )) {
    const reserved = held.filter((r) => r.location === slot.location && r.plan === slot.plan).length;
    console.log(
      `${slot.location.padEnd(20)} ${slot.plan.padEnd(9)} ${String(slot.total).padStart(6)} ${String(slot.used).padStart(6)} ${String(reserved).padStart(9)} ${String(freeSlots(slot, held, now)).padStart(6)}`,
    );
  }
  if (slots.length === 0) console.log('(no capacity in this region)');
};

main().catch((error: unknown) => {
  // A stage that is unknown, never deployed or out of reach of the credentials: one line.
  if (error instanceof StageProblem || error instanceof NoCredentials || error instanceof MissingClient)
    stop(error.message);
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
