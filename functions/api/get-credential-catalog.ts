import { httpHandler } from '#http/handler.ts';
import { credentialCatalog } from '../credentials/catalog.ts';

/** GET /v1/credentials/catalog: the Providers, their kinds and the consent text (any member). */
export const handler = httpHandler({ auth: 'session' }, async () => ({
  status: 200,
  body: credentialCatalog(),
}));
