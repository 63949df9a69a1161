import { startPlanChange } from '#ports/workflows.ts';
import { scanOpenPlanChanges } from '#store/plan-changes.ts';
import { executionOf } from './record.ts';

/**
 * Starts the execution of every open Plan Change again from its record (a start of an execution
 * that runs is a no-op). The local control plane calls it at start, because its Step Functions
 * stand-in keeps executions in memory; each task resumes from what the record says.
 */
export const resumeOpenPlanChanges = async (): Promise<number> => {
  const open = await scanOpenPlanChanges();
  for (const change of open) await startPlanChange(executionOf(change));
  return open.length;
};
