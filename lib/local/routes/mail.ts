import { refuse } from '../../../functions/core/refusals/index.ts';
import { httpHandler } from '../../../functions/http/handler.ts';
import type { AdapterRoute } from '../http-adapter.ts';
import type { MailArchive } from '../mail.ts';
import { refuseUnknownQuery } from './query.ts';

const EMAIL_ADDRESS = /^[^\s@,]+@[^\s@,]+$/;

/** The sent mail, from the copy kept in the data folder (see lib/local/mail.ts). */
export const mailRoute = (mail: MailArchive): AdapterRoute => ({
  method: 'GET',
  path: '/_local/mail',
  auth: 'none',
  handler: httpHandler({ auth: 'none' }, async ({ query }) => {
    refuseUnknownQuery(query, ['to']);
    if (query.to !== undefined && !EMAIL_ADDRESS.test(query.to))
      throw refuse(
        'invalid_field',
        {
          what: 'Query parameter "to" is invalid: expected one email address, such as alice@users.code-host.test.',
        },
        { field: 'to' },
      );
    await mail.sync();
    return { status: 200, body: { emails: mail.list(query.to) } };
  }),
});
