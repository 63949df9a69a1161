import { httpHandler } from '#http/handler.ts';
import { readDesiredState } from '../stacks/dispatcher.ts';

/** GET /v1/dispatcher/desired-state: what the calling Dispatcher's Stack must be (ETag, 304). */
export const handler = httpHandler({ auth: 'dispatcher' }, async ({ principal, headers }) => {
  const answer = await readDesiredState({ ...principal, ifNoneMatch: headers['if-none-match'] });
  return answer.notModified
    ? { status: 304, headers: answer.headers }
    : { status: 200, headers: answer.headers, body: answer.body };
});
