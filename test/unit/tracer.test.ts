import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { traced, tracer } from '../../functions/ports/tracer.ts';

describe('the tracer port', () => {
  it('is off outside Lambda (npm start, the tests): a traced client is the client itself, its middleware unchanged', () => {
    expect(tracer.isTracingEnabled()).toBe(false);
    const client = new DynamoDBClient({ region: 'us-east-1' });
    const before = client.middlewareStack.identify();
    expect(traced(client)).toBe(client);
    expect(client.middlewareStack.identify()).toEqual(before);
  });
});
