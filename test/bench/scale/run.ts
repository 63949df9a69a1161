import { parseArgs } from 'node:util';
import { percentile, runScale } from './simulate.ts';

const { values } = parseArgs({
  options: { tenants: { type: 'string', default: '10000' }, 'day-seconds': { type: 'string' } },
});
const started = performance.now();
const result = await runScale({
  tenants: Number(values.tenants),
  ...(values['day-seconds'] ? { daySeconds: Number(values['day-seconds']) } : {}),
  log: (line) => console.log(line),
});
console.log(JSON.stringify({ ...result, eventLags: undefined, recheckWaits: undefined, serviceTimes: undefined }, null, 1));
console.log('lag p50', percentile(result.eventLags, 50), 'p99', percentile(result.eventLags, 99), 'max wait', Math.max(...result.recheckWaits));
console.log('wall', (performance.now() - started) / 1000);
process.exit(0);
