import { Logger } from '@aws-lambda-powertools/logger';

/** Structured JSON logs; every line of a request carries its requestId. */
export const logger = new Logger({ serviceName: 'stack-control-plane' });
