import { Tracer } from '@aws-lambda-powertools/tracer';

/**
 * Powertools Tracer for every function (issue 22 item 8): with the functions' X-Ray active tracing
 * (lib/infra/constructs/lambda.ts), each AWS SDK client made through `traced` and every outgoing
 * HTTPS request (the processor's API) is a subsegment of the invocation's trace. Outside Lambda
 * (npm start, the tests) the Tracer turns itself off and `traced` returns the client unchanged.
 */
export const tracer = new Tracer({ serviceName: 'stack-control-plane' });

/** An AWS SDK v3 client whose calls are traced (the same client where tracing is off). */
export const traced = <T>(client: T): T => tracer.captureAWSv3Client(client);
