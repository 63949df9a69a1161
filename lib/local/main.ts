import path from 'node:path';
import { parseArgs } from 'node:util';
import { DEFAULTS, ENVIRONMENT } from '../../functions/ports/config.ts';
import { REPO_ROOT } from '../constants.ts';
import { JavaMissingError } from './dynamodb.ts';
import { PortInUseError, startLocalControlPlane } from './server.ts';

/** `npm start`: the whole control plane on this machine, no cloud account needed. */
const USAGE = `Usage: npm start -- [--fresh] [--port 3000] [--data-dir .local] [--sweep-every 60] [--manual-sweep] [--verbose]
  --fresh      start from an empty database (deletes the data folder first)
  --port       HTTP port of the API (env PORT; default 3000; 0 picks a free port)
  --data-dir   where the local state is kept across restarts (default .local)
  --sweep-every seconds between scheduled reconciler sweeps (default 60; processor events nudge one at once)
  --manual-sweep no scheduled or nudged sweeps: run each one with POST /_local/sweep (to step through by hand)
  --processor-url use an outside processor emulator (node lib/local/processor/main.ts) at this URL instead of one in this process
  --dynamodb-endpoint use an outside DynamoDB Local at this URL instead of starting one (the table is created there)
  --verbose    also a JSON line for every routine request (env REQUEST_LOG_SAMPLE_RATE=1 does the same);
               sweeps, errors, refusals of money operations and state changes are always printed`;

/** On a warm machine everything is up within this; past it, the slowest part is named. */
const READY_WITHIN_SECONDS = 15;

/** One line per part as it comes up: `  ✓ table      DynamoDB Local … (3.2 s)`. */
const progressLine = (part: string, detail: string, ms: number) =>
  console.log(`  ✓ ${part.padEnd(10)} ${detail} (${(ms / 1000).toFixed(1)} s)`);

const main = async () => {
  const { values } = parseArgs({
    options: {
      fresh: { type: 'boolean', default: false },
      port: { type: 'string', default: process.env.PORT ?? ENVIRONMENT.PORT.localDefault },
      'data-dir': { type: 'string', default: path.join(REPO_ROOT, '.local') },
      'sweep-every': {
        type: 'string',
        default: process.env.SWEEP_EVERY_SECONDS ?? ENVIRONMENT.SWEEP_EVERY_SECONDS.localDefault,
      },
      'manual-sweep': { type: 'boolean', default: false },
      verbose: { type: 'boolean', default: false },
      'processor-url': { type: 'string' },
      'dynamodb-endpoint': { type: 'string' },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    console.log(USAGE);
    return;
  }
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    console.error(`--port must be a port number, got "${values.port}"\n${USAGE}`);
    process.exit(2);
  }
  const sweepEverySeconds = Number(values['sweep-every']);
  if (!(sweepEverySeconds >= 1)) {
    console.error(
      `--sweep-every must be a number of seconds, 1 or more, got "${values['sweep-every']}"\n${USAGE}`,
    );
    process.exit(2);
  }
  const startedAt = performance.now();
  process.env.POWERTOOLS_LOG_LEVEL ??= DEFAULTS.POWERTOOLS_LOG_LEVEL;
  // Quiet by default: no line for routine requests unless asked (functions/core/request-log.ts).
  if (values.verbose) process.env.REQUEST_LOG_SAMPLE_RATE = '1';
  else process.env.REQUEST_LOG_SAMPLE_RATE ??= '0';
  /** The slowest part so far, to name when the start is slow. */
  let slowest = { part: '', ms: 0 };
  // Said with the first part (once the port is ours: a taken port is one line on stderr, no more).
  let announced = false;
  const plane = await startLocalControlPlane({
    ...(values['processor-url'] ? { processorUrl: values['processor-url'] } : {}),
    ...(values['dynamodb-endpoint'] ? { dynamoDbEndpoint: values['dynamodb-endpoint'] } : {}),
    port,
    dataDirectory: values['data-dir'],
    fresh: values.fresh,
    sweepEverySeconds,
    sweepMode: values['manual-sweep'] ? 'manual' : 'auto',
    logSweeps: true,
    progress: (part, detail, ms) => {
      if (!announced) console.log('Starting the local control plane (Ctrl-C stops it)...');
      announced = true;
      if (ms > slowest.ms) slowest = { part, ms };
      progressLine(part, detail, ms);
    },
  });
  const seconds = (performance.now() - startedAt) / 1000;
  const slow =
    seconds > READY_WITHIN_SECONDS
      ? `\n  (slower than ${READY_WITHIN_SECONDS} s: ${slowest.part} took ${(slowest.ms / 1000).toFixed(1)} s${slowest.part === 'table' ? '; DynamoDB Local is a Java process, slow on a cold JVM or a busy machine' : ''})`
      : '';
  const sweeps = values['manual-sweep']
    ? 'manual: only when you ask'
    : `every ${sweepEverySeconds} s, and at once after each processor event`;
  console.log(`
Stack Control Plane (local) ready in ${seconds.toFixed(1)} s${slow}
  Console          ${plane.url}/   (sign in through the code-host stand-in)
  API              ${plane.url}
  Processor        ${plane.processorUrl}   (Stripe API emulator, hosted Checkout, Portal and invoices)
  Sign in (JSON)   POST ${plane.url}/_local/sign-in      {"login":"alice"}
  Pay (no browser) POST ${plane.url}/_local/processor/checkout/<sessionId>/pay   {"card":"4242 4242 4242 4242"}
  Clock            GET  ${plane.url}/_local/clock  ·  POST ${plane.url}/_local/clock/advance {"seconds":86400}
  Sweep            POST ${plane.url}/_local/sweep   (${sweeps})
  Sent mail        GET  ${plane.url}/_local/mail[?to=<address>]
  Data             ${values['data-dir']}${values.fresh ? ' (fresh)' : ''}
  Logs             one line per sweep that changed something, error, refused money operation and state change${values.verbose ? '; every request too (--verbose)' : '; add --verbose for every request'}
Press Ctrl-C to stop.`);

  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`\n${signal}: stopping the local control plane...`);
    plane.stop().then(
      () => process.exit(0),
      (error: unknown) => {
        console.error(error);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('SIGTERM', () => shutdown('SIGTERM'));
};

main().catch((error: unknown) => {
  if (error instanceof JavaMissingError || error instanceof PortInUseError) {
    console.error(error.message);
  } else {
    console.error(error);
  }
  process.exit(1);
});
