// Signed out: the code host's sign-in, and locally the sign-in shortcut of `npm start`; then the slug.
import { api } from '../api.js';
import { h, label } from '../dom.js';
import { form, nav, rememberAddress, route, say, screen } from '../ui.js';

export const signInScreen = async () => {
  nav.hidden = true;
  const codeHost = h('a', { href: '/v1/auth/sign-in' }, 'Sign in with the code host');
  // The code host sends the browser back to the console's page without the address's `#/…`: the
  // console keeps it for this tab and goes back there once signed in (app.js).
  codeHost.addEventListener('click', () => rememberAddress());
  const children = [
    h('p', {}, 'Sign in with your code-host account to buy and manage Stacks.'),
    h('p', {}, codeHost),
  ];
  const local = await fetch('/_local/clock').then(
    (r) => r.ok,
    () => false,
  );
  if (local)
    children.push(
      form(
        'Local sign-in',
        [
          h('h3', {}, 'Local sign-in (npm start only)'),
          label(
            'Code-host login',
            h('input', { name: 'login', id: 'login', required: '', autocomplete: 'username' }),
          ),
        ],
        'Sign in locally',
        async (data) => {
          await api('POST', '/_local/sign-in', { login: String(data.get('login')) });
          await route();
        },
      ),
    );
  screen('Sign in', ...children);
};

// The slug, chosen once after the first sign-in.

export const slugScreen = () =>
  screen(
    'Choose your slug',
    h('p', {}, 'The slug names your Stacks: <slug>.<stack domain>. It cannot be changed later.'),
    form(
      'Slug',
      [
        label(
          'Slug (3 to 40 lowercase letters, digits or hyphens)',
          h('input', { name: 'slug', id: 'slug', required: '', pattern: '[a-z](?:[a-z0-9\\-]*[a-z0-9])?' }),
        ),
      ],
      'Save slug',
      async (data) => {
        const saved = await api('POST', '/v1/tenant/slug', { slug: String(data.get('slug')) });
        say(`Your first Stack will be ${saved.stackName}.`);
        location.hash = '#/plans';
        await route();
      },
    ),
  );
