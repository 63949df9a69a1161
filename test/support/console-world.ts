import * as ui from './console-browser.ts';
import { localClient, sharedCloud } from './local-cloud.ts';

/**
 * What a console e2e file needs, in one call at its top: the shared `npm start` it drives
 * (`server`), an API client on it to arrange the world and read what was stored (`cloud`), and the
 * browser helpers (`ui`: `describeInChromium`, `consolePageOf`, `check`, `drawn`, `inPage`...,
 * test/support/console-browser.ts).
 */
export const consoleWorld = () => {
  const server = sharedCloud();
  return { server, cloud: localClient(() => server), ui };
};
