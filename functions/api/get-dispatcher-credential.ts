import { httpHandler } from '#http/handler.ts';
import { readCredentialForValidation } from '../credentials/dispatcher-material.ts';

/** GET /v1/dispatcher/credentials/{name}: a Credential's material, to its own Stack's Dispatcher only. */
export const handler = httpHandler({ auth: 'dispatcher' }, async ({ principal, pathParameters }) => ({
  status: 200,
  body: await readCredentialForValidation({ ...principal, name: pathParameters.name ?? '' }),
}));
