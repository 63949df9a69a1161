// A returning customer: the account has left and is torn down; the same sign-in starts a new
// account with a new slug (POST /v1/tenant/slug), then a first checkout at today's prices.
import { api } from '../api.js';
import { dateTime, h, label } from '../dom.js';
import { form, main, route, say, screen } from '../ui.js';

/** The former accounts, each with when it closed (their invoices stay readable). */
const formerList = (/** @type {any} */ me) =>
  me.formerAccounts?.length
    ? [
        h('h3', {}, 'Your former accounts'),
        h(
          'ul',
          {},
          ...me.formerAccounts.map((/** @type {any} */ old) =>
            h(
              'li',
              {},
              `${old.slug ?? 'an account without a slug'}${old.closedAt ? `, closed ${dateTime(old.closedAt)}` : ''}`,
            ),
          ),
        ),
      ]
    : [];

export const newAccountScreen = (/** @type {any} */ me) =>
  screen(
    'Start a new account',
    h('p', {}, me.newAccount.text),
    h(
      'p',
      {},
      'Nothing is carried over but you: the new account pays the prices of the day, with no Founding Price Lock, and the money-back refund is once per person.',
    ),
    form(
      'New account',
      [
        label(
          'New slug (3 to 40 lowercase letters, digits or hyphens)',
          h('input', { name: 'slug', id: 'slug', required: '', pattern: '[a-z](?:[a-z0-9\\-]*[a-z0-9])?' }),
        ),
      ],
      'Start the new account',
      async (data) => {
        const saved = await api('POST', '/v1/tenant/slug', { slug: String(data.get('slug')) });
        say(`Your new account is ${saved.slug}; its first Stack will be ${saved.stackName}.`);
        location.hash = '#/plans';
        await route();
      },
    ),
    h(
      'p',
      {},
      h('a', { href: '#/account' }, 'See the closed account’s billing'),
      ': its invoices and history stay readable.',
    ),
    ...formerList(me),
  );

/** While the account still serves or can be exported: when a new account becomes possible. */
export const newAccountNotice = (/** @type {any} */ me) => {
  if (!me.newAccount || me.newAccount.possible) return;
  main.append(h('p', { class: 'note', id: 'new-account-notice' }, me.newAccount.text));
};
