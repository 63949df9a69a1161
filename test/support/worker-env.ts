import { inject } from 'vitest';

// Point every AWS SDK client of this worker at the stand-ins started by the global setup
// (test-environment.ts sets the deployment settings).
Object.assign(process.env, inject('localCloudEnvironment'));
