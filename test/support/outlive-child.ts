import { appendFileSync } from 'node:fs';
import path from 'node:path';
import { freePort } from '../../lib/local/ports.ts';
import { ProcessorEmulator } from '../../lib/local/processor/emulator.ts';
import { startSqsStandIn } from '../../lib/local/sqs.ts';
import { startLocalStepFunctions } from '../../lib/local/stepfunctions.ts';

/**
 * A child process for test/unit/local-services-outlive-kill.test.ts: the local Step Functions and
 * the processor emulator and the SQS stand-in on a data folder, as `npm start` keeps them, to be killed (SIGKILL) and
 * started again on the same folder. `node test/support/outlive-child.ts <dataDir> <waitMs> [webhookUrl]`
 * prints one JSON line with the endpoints once both listen; the tasks log to `<dataDir>/tasks.log`.
 */

const [dataDirectory = '', waitMs = '50', webhookUrl] = process.argv.slice(2);
const taskLog = path.join(dataDirectory, 'tasks.log');
const lambda = (name: string) => `arn:aws:lambda:us-east-1:000000000000:function:${name}`;

/** Two tasks and a Wait between them: a kill during the Wait leaves the second task to run. */
const definition = {
  StartAt: 'First',
  States: {
    First: { Type: 'Task', Resource: lambda('first'), Next: 'Pause' },
    Pause: { Type: 'Wait', Seconds: 1, Next: 'Second' },
    Second: { Type: 'Task', Resource: lambda('second'), End: true },
  },
};

type Input = { id: string; steps?: string[] };
const task = (name: string) => (input: unknown) => {
  const given = input as Input;
  appendFileSync(taskLog, `${process.pid} ${name} ${given.id}\n`);
  return { ...given, steps: [...(given.steps ?? []), name] } as never;
};

const stepFunctions = await startLocalStepFunctions({
  region: 'us-east-1',
  definition,
  tasks: [],
  handlers: { First: task('First'), Second: task('Second') },
  waitMs: Number(waitMs),
  dataDirectory,
});
stepFunctions.resumeKept();
const processor = new ProcessorEmulator({
  now: () => new Date(),
  stateFile: path.join(dataDirectory, 'processor.json'),
});
await processor.start();
// Webhooks to `<webhookUrl>` when given (a third argument).
if (webhookUrl) processor.setWebhook({ url: webhookUrl, secret: 'whsec_outlive' });
const sqsPort = await freePort();
await startSqsStandIn(sqsPort, 'us-east-1', path.join(dataDirectory, 'queues.json'));
console.log(
  JSON.stringify({
    sqs: `http://127.0.0.1:${sqsPort}`,
    stepFunctions: stepFunctions.endpoint,
    arn: stepFunctions.stateMachineArn,
    processor: processor.url,
  }),
);
