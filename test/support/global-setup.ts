import type { TestProject } from 'vitest/node';
import { startLocalCloud } from '../../lib/local/cloud.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    localCloudEnvironment: Record<string, string>;
  }
}

/** Starts DynamoDB Local (in memory) and the SQS and SES stand-ins once for the whole run. */
export default async function setup(project: TestProject) {
  const cloud = await startLocalCloud();
  project.provide('localCloudEnvironment', cloud.environment);
  return async () => {
    await cloud.stop();
  };
}
