// Credentials of a Stack (a Stack picker): provision and rotate, the list, archive, the Guide
// selection, and deletion with the blocking list and then the Thread-count confirmation.
import { ApiError, api } from '../api.js';
import { count, dateTime, h, label, option } from '../dom.js';
import {
  button,
  dl,
  errorBox,
  form,
  hashParts,
  pickStack,
  poll,
  redrawKeepingFocus,
  say,
  screen,
  stackPicker,
} from '../ui.js';

/**
 * The answers to a Delete still waiting for the person (the confirmation with its token, or the
 * routes that block it), by Stack and Credential: the screen redraws itself while a validation is
 * pending, and a redraw must not take the question away while it is being read. A new visit of
 * the screen (the router) starts without them.
 * @type {Map<string, ApiError>}
 */
const deleteAnswers = new Map();

// The Provider catalog, the consent text and its version, the activities and efforts all come from
// `GET /v1/credentials/catalog` (the API's own rules), never from this page.

/** The catalog's Provider entry for a Provider value (undefined for one the catalog lost). */
const providerOf = (/** @type {any} */ catalog, /** @type {string} */ provider) =>
  catalog.providers.find((/** @type {any} */ p) => p.provider === provider);

/**
 * The kinds to offer for a Provider on this Stack. A kind that only works on a Local Stack using
 * the host Executor (`ambient`) is offered only where the Stack view says it is one
 * (`localHostExecutor`); the API refuses it everywhere else.
 */
const kindsFor = (/** @type {any} */ catalog, /** @type {string} */ provider, /** @type {any} */ stack) =>
  (providerOf(catalog, provider)?.kinds ?? []).filter(
    (/** @type {any} */ k) => !k.localOnly || stack.localHostExecutor === true,
  );

const kindNote = (/** @type {any} */ k) =>
  [
    k.needsConsent
      ? 'Spends your own subscription with the provider: your consent is needed.'
      : 'Metered: the provider charges its usage on top of the flat fee; no consent needed.',
    k.localOnly
      ? 'Uses the host’s own login: this Stack is a Local Stack using the host Executor, so no secret is sent.'
      : '',
  ]
    .filter(Boolean)
    .join(' ');

const profileText = (
  /** @type {any} */ profile,
  /** @type {any} */ catalog,
  /** @type {string} */ provider,
) => {
  const parts = catalog.activities
    .filter((/** @type {string} */ a) => profile?.[a])
    .map(
      (/** @type {string} */ a) =>
        `${a}: ${[profile[a].model, profile[a].effort ? `${profile[a].effort} effort` : ''].filter(Boolean).join(', ')}`,
    );
  const d = providerOf(catalog, provider)?.defaults;
  const defaults = d ? ` (${d.model}, ${d.effort} effort)` : '';
  return parts.length
    ? `${parts.join('; ')}; otherwise the Provider’s defaults${defaults}`
    : `The Provider’s defaults${defaults}`;
};

/** The screen as the router shows it: a new visit, so no question of an earlier one is kept. */
export const credentialsScreen = () => {
  deleteAnswers.clear();
  return drawCredentials();
};

/** The screen, drawn again in place (a poll, an action) with the questions still asked. */
const drawCredentials = async () => {
  const { stacks, chosen } = await pickStack(hashParts()[1]);
  if (!chosen) return screen('Credentials', h('p', {}, 'No Stack yet.'));
  const q = `?stackId=${encodeURIComponent(chosen.stackId)}`;
  const [data, { projects }, catalog] = await Promise.all([
    api('GET', `/v1/credentials${q}`),
    api('GET', `/v1/stacks/${chosen.stackId}/projects`),
    api('GET', '/v1/credentials/catalog'),
  ]);
  const again = () => drawCredentials();
  // A torn-down Stack holds no new Credential (the API refuses `stack_torn_down`): no form, no Rotate.
  const tornDown = chosen.lifecycle === 'torn_down';
  const provision = tornDown
    ? {
        element: h('p', { class: 'muted' }, 'This Stack was torn down: it can hold no new Credential.'),
        rotate: undefined,
      }
    : provisionForm(chosen, catalog, again);
  screen(
    `Credentials of ${chosen.name}`,
    stackPicker('credentials', stacks, chosen),
    guideSection(chosen, data, again),
    h('h3', {}, 'Credentials'),
    data.credentials.length
      ? h(
          'div',
          {},
          ...data.credentials.map((/** @type {any} */ c) =>
            credentialCard(chosen, c, projects, provision, again, catalog),
          ),
        )
      : h('p', {}, 'No Credentials yet.'),
    provision.element,
  );
  if (data.credentials.some((/** @type {any} */ c) => c.validation.state === 'pending'))
    poll(
      async () => {
        const now = await api('GET', `/v1/credentials${q}`);
        return JSON.stringify(now) !== JSON.stringify(data);
      },
      () => redrawKeepingFocus(again),
    );
};

const guideSection = (
  /** @type {any} */ stack,
  /** @type {any} */ data,
  /** @type {() => Promise<void>} */ again,
) => {
  const g = data.guide;
  const choices = data.credentials.filter(
    (/** @type {any} */ c) => !c.archivedAt && c.validation.state !== 'invalid',
  );
  return h(
    'section',
    { class: 'card', 'aria-label': 'Guide Credential' },
    h('h3', {}, 'Guide Credential'),
    h('p', {}, 'Every Guide Session of this Stack uses this one Credential, never another.'),
    dl([
      [
        'Selected',
        g.name
          ? `${g.name}${g.selectedAt ? ` (since ${dateTime(g.selectedAt)})` : ''}: ${g.usable ? 'usable' : `not usable (${label(g.unusableReason)})`}`
          : 'None',
      ],
      [
        'Last cleared',
        g.cleared ? `${g.cleared.name}: ${label(g.cleared.reason)}, ${dateTime(g.cleared.at)}` : 'Never',
      ],
    ]),
    choices.length
      ? form(
          'Choose the Guide Credential',
          [
            label(
              'Guide Credential',
              h(
                'select',
                { name: 'name', id: 'guide-name' },
                ...choices.map((/** @type {any} */ c) => option(c.name, c.name, c.name === g.name)),
              ),
            ),
          ],
          'Choose as Guide',
          async (form) => {
            await api('PUT', `/v1/stacks/${stack.stackId}/guide-credential`, {
              name: String(form.get('name')),
            });
            say(`The Guide now uses ${form.get('name')}.`);
            await again();
          },
        )
      : h('p', { class: 'muted' }, 'No Credential can be chosen: provision one first.'),
    g.name
      ? button(
          'Clear the Guide',
          async () => {
            await api('PUT', `/v1/stacks/${stack.stackId}/guide-credential`, { name: null });
            say('The Guide selection is cleared.');
            await again();
          },
          'secondary',
        )
      : '',
  );
};

const credentialCard = (
  /** @type {any} */ stack,
  /** @type {any} */ c,
  /** @type {any[]} */ projects,
  /** @type {{ rotate: ((c: any) => void) | undefined }} */ provision,
  /** @type {() => Promise<void>} */ again,
  /** @type {any} */ catalog,
) => {
  const q = `?stackId=${encodeURIComponent(stack.stackId)}`;
  const out = h('div', {});
  const key = `${stack.stackId}/${c.name}`;
  const projectName = (/** @type {string} */ id) => projects.find((p) => p.projectId === id)?.name ?? id;
  /** The answer to a Delete shown under the card: the blocking routes, or the confirmation. */
  const answer = (/** @type {ApiError} */ error) => {
    if (error.code === 'credential_in_use')
      return h(
        'div',
        { role: 'alert' },
        h('p', {}, h('strong', {}, 'Cannot delete: '), `these routes name ${c.name}. Change them first.`),
        h(
          'ul',
          { 'aria-label': `Routes naming ${c.name}` },
          ...(error.body.uses ?? []).map((/** @type {any} */ u) =>
            h('li', {}, `Project ${projectName(u.projectId)}: ${u.activity}, ${u.position}`),
          ),
        ),
      );
    return h(
      'div',
      { role: 'alert' },
      h(
        'p',
        {},
        error.body.threadCount === 0
          ? `No Thread uses ${c.name}: deleting it stops none. Confirm before ${dateTime(error.body.expiresAt)}.`
          : `${count(error.body.threadCount, 'Thread uses', 'Threads use')} ${c.name}: deleting it means they cannot go on. Confirm before ${dateTime(error.body.expiresAt)}.`,
      ),
      button(
        error.body.threadCount === 0
          ? `Confirm: delete ${c.name}`
          : `Confirm: delete ${c.name} and stop ${count(error.body.threadCount, 'Thread')}`,
        () => remove(error.body.confirmationToken),
      ),
    );
  };
  const remove = async (/** @type {string} */ token = '') => {
    out.replaceChildren();
    deleteAnswers.delete(key);
    try {
      await api(
        'DELETE',
        `/v1/credentials/${encodeURIComponent(c.name)}${q}${token ? `&confirmationToken=${encodeURIComponent(token)}` : ''}`,
      );
      say(`Credential ${c.name} is deleted.`);
      await again();
    } catch (error) {
      if (
        error instanceof ApiError &&
        (error.code === 'credential_in_use' || error.code === 'confirmation_required')
      ) {
        deleteAnswers.set(key, error);
        out.replaceChildren(answer(error));
      } else out.replaceChildren(errorBox(error));
    }
  };
  // Asked before this drawing (the screen redrew itself meanwhile): still asked, with the same token.
  const kept = deleteAnswers.get(key);
  if (kept) out.replaceChildren(answer(kept));
  const v = c.validation;
  return h(
    'section',
    { class: 'card', 'aria-label': `Credential ${c.name}` },
    h('h4', {}, c.name),
    dl([
      [
        'Provider',
        `${c.provider}${providerOf(catalog, c.provider) ? `: ${providerOf(catalog, c.provider).name}` : ''}`,
      ],
      ['Kind', label(c.kind)],
      [
        'Usage',
        c.usage === 'metered'
          ? 'Metered: the provider charges its usage on top of the flat fee'
          : 'Your personal subscription with the provider',
      ],
      [
        'Validation',
        `${label(v.state)}${v.reason ? `: ${v.reason}` : ''}${v.checkedAt ? ` (checked ${dateTime(v.checkedAt)})` : ''}`,
      ],
      ['Usable', c.usable ? 'Yes' : `No: ${label(c.unusableReason)}`],
      [
        'Consent',
        c.consent
          ? `Given by ${c.consent.by} on ${dateTime(c.consent.at)} (text version ${c.consent.textVersion})`
          : 'Not needed',
      ],
      ['Runtime Profile', profileText(c.runtimeProfile, catalog, c.provider)],
      ['Created', dateTime(c.createdAt)],
      ['Rotated', c.rotatedAt ? dateTime(c.rotatedAt) : 'Never'],
      ['Archived', c.archivedAt ? dateTime(c.archivedAt) : 'No'],
    ]),
    h(
      'p',
      { class: 'actions' },
      provision.rotate ? button(`Rotate ${c.name}`, () => provision.rotate?.(c), 'secondary') : '',
      ' ',
      c.archivedAt
        ? ''
        : button(
            `Archive ${c.name}`,
            async () => {
              await api('POST', `/v1/credentials/${encodeURIComponent(c.name)}/archive${q}`);
              say(`Credential ${c.name} is archived.`);
              await again();
            },
            'secondary',
          ),
      ' ',
      button(`Delete ${c.name}`, () => remove(), 'secondary'),
    ),
    out,
  );
};

/** Provisions (a new name) or rotates (an existing one). The material never stays on the page. */
const provisionForm = (
  /** @type {any} */ stack,
  /** @type {any} */ catalog,
  /** @type {() => Promise<void>} */ again,
) => {
  const { textVersion, text: consentText } = catalog.consent;
  const name = h('input', {
    name: 'name',
    id: 'cred-name',
    required: '',
    pattern: '[a-z0-9][a-z0-9\\-]{0,62}',
    autocomplete: 'off',
  });
  const provider = /** @type {HTMLSelectElement} */ (
    h(
      'select',
      { name: 'provider', id: 'cred-provider' },
      ...catalog.providers.map((/** @type {any} */ p) =>
        h('option', { value: p.provider }, `${p.name} (${p.provider})`),
      ),
    )
  );
  const kind = /** @type {HTMLSelectElement} */ (
    h('select', { name: 'kind', id: 'cred-kind', 'aria-describedby': 'cred-kind-note' })
  );
  const note = h('p', { id: 'cred-kind-note', class: 'muted' });
  const secret = /** @type {HTMLInputElement} */ (
    h('input', { name: 'material', id: 'cred-material', type: 'password', autocomplete: 'off' })
  );
  const file = /** @type {HTMLTextAreaElement} */ (
    h('textarea', { name: 'authFile', id: 'cred-auth-file', rows: '5', spellcheck: 'false' })
  );
  const upload = /** @type {HTMLInputElement} */ (
    h('input', { type: 'file', id: 'cred-auth-upload', accept: 'application/json,.json' })
  );
  upload.addEventListener('change', async () => {
    const chosen = upload.files?.[0];
    if (chosen) file.value = await chosen.text();
  });
  const consent = /** @type {HTMLInputElement} */ (
    h('input', { type: 'checkbox', name: 'consent', id: 'cred-consent' })
  );
  const secretRow = label('Secret (token or key)', secret);
  const fileRow = h(
    'div',
    {},
    label('Auth file (JSON)', file),
    label('Or read the auth file from disk', upload),
  );
  const consentRow = h(
    'fieldset',
    {},
    h('legend', {}, `Consent (text version ${textVersion})`),
    h('p', { id: 'consent-text' }, consentText),
    h(
      'div',
      {},
      consent,
      ' ',
      h('label', { for: 'cred-consent' }, `I agree to the consent text above (version ${textVersion})`),
    ),
  );
  const profile = h(
    'fieldset',
    {},
    h('legend', {}, 'Runtime Profile (optional; left empty, the Provider’s defaults apply)'),
    h('p', { class: 'muted', id: 'cred-defaults' }),
    ...catalog.activities.map((/** @type {string} */ a) =>
      h(
        'div',
        { class: 'row' },
        label(
          `Model for ${a}`,
          h('input', { name: `model-${a}`, id: `cred-model-${a}`, autocomplete: 'off' }),
        ),
        label(
          `Effort for ${a}`,
          h(
            'select',
            { name: `effort-${a}`, id: `cred-effort-${a}` },
            h('option', { value: '' }, 'Default'),
            ...catalog.efforts.map((/** @type {string} */ e) => h('option', { value: e }, e)),
          ),
        ),
      ),
    ),
  );
  const defaultsLine = /** @type {HTMLElement} */ (profile.querySelector('#cred-defaults'));
  /** The catalog's entry of the chosen kind. */
  const chosenKind = () =>
    (providerOf(catalog, provider.value)?.kinds ?? []).find((/** @type {any} */ k) => k.kind === kind.value);
  const heading = h('h3', { tabindex: '-1' }, 'Provision a Credential');
  const sync = () => {
    const current = kind.value;
    kind.replaceChildren(
      ...kindsFor(catalog, provider.value, stack).map((/** @type {any} */ k) =>
        option(k.kind, label(k.kind), k.kind === current),
      ),
    );
    const k = kind.value;
    const entry = chosenKind();
    note.textContent = entry ? kindNote(entry) : '';
    const d = providerOf(catalog, provider.value)?.defaults;
    defaultsLine.textContent = d ? `Left empty: ${d.model} with ${d.effort} effort.` : '';
    secretRow.hidden = k === 'auth_file' || Boolean(entry?.localOnly);
    fileRow.hidden = k !== 'auth_file';
    consentRow.hidden = !entry?.needsConsent;
    if (secretRow.hidden) secret.removeAttribute('required');
    else secret.setAttribute('required', '');
    if (consentRow.hidden) consent.removeAttribute('required');
    else consent.setAttribute('required', '');
  };
  provider.addEventListener('change', sync);
  kind.addEventListener('change', sync);
  const element = h(
    'section',
    { class: 'card', 'aria-label': 'Provision or rotate a Credential' },
    heading,
    h(
      'p',
      {},
      'A new name adds a Credential; an existing name rotates it (new material, possibly another kind, never another Provider). The secret is sent once and never shown again.',
    ),
    form(
      'Provision a Credential',
      [
        label('Name (lowercase letters, digits and hyphens)', name),
        label('Provider', provider),
        label('Kind', kind),
        note,
        secretRow,
        fileRow,
        consentRow,
        profile,
      ],
      'Save the Credential',
      async (data, formElement) => {
        const k = String(data.get('kind'));
        const entry = chosenKind();
        const material = entry?.localOnly
          ? undefined
          : String(data.get(k === 'auth_file' ? 'authFile' : 'material'));
        // The material leaves the page now: the fields are emptied before the answer comes back.
        secret.value = '';
        file.value = '';
        upload.value = '';
        /** @type {Record<string, any>} */
        const runtimeProfile = {};
        for (const a of catalog.activities) {
          const model = String(data.get(`model-${a}`) ?? '').trim();
          const effort = String(data.get(`effort-${a}`) ?? '');
          if (model || effort)
            runtimeProfile[a] = { ...(model ? { model } : {}), ...(effort ? { effort } : {}) };
        }
        const saved = await api(
          'POST',
          `/v1/credentials/${encodeURIComponent(String(data.get('name')))}?stackId=${encodeURIComponent(stack.stackId)}`,
          {
            provider: String(data.get('provider')),
            kind: k,
            ...(material ? { material } : {}),
            ...(entry?.needsConsent ? { consent: { textVersion } } : {}),
            ...(Object.keys(runtimeProfile).length ? { runtimeProfile } : {}),
          },
        );
        formElement.reset();
        say(`Credential ${saved.name} is saved; its validation is ${label(saved.validation.state)}.`);
        await again();
      },
    ),
  );
  sync();
  return {
    element,
    rotate: (/** @type {any} */ c) => {
      heading.textContent = `Rotate ${c.name}`;
      name.setAttribute('value', c.name);
      /** @type {HTMLInputElement} */ (name).value = c.name;
      provider.value = c.provider;
      sync();
      kind.value = c.kind;
      sync();
      heading.focus();
    },
  };
};
