import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { escapeHtml } from '../../functions/core/html.ts';
import type { Environment } from '../../functions/ports/config.ts';
import { closeServer, listenOn } from './ports.ts';

/**
 * A stand-in for the code host's OAuth app (GitHub's endpoints and shapes): an authorize page
 * where you sign in as any login (or deny), the token exchange with PKCE, `GET /user` and
 * `GET /user/emails`. Plain HTML forms, no JavaScript. Accounts are made up on first use with a
 * stable numeric id per login.
 */

export interface CodeHostEmail {
  email: string;
  primary: boolean;
  verified: boolean;
}

export interface LocalCodeHost {
  url: string;
  clientId: string;
  clientSecret: string;
  /** Overrides the addresses an account reports (e.g. none verified). */
  setEmails(login: string, emails: CodeHostEmail[]): void;
  /** Lets the next token exchange fail with 503, as a code host outage would. */
  failNextExchange(): void;
  stop(): Promise<void>;
}

interface PendingCode {
  login: string;
  redirectUri: string;
  codeChallenge: string;
  expiresAt: number;
}

export const accountId = (login: string): number =>
  Number.parseInt(createHash('sha256').update(login.toLowerCase()).digest('hex').slice(0, 8), 16);

const readBody = async (request: IncomingMessage): Promise<URLSearchParams> => {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  if ((request.headers['content-type'] ?? '').includes('application/json')) {
    return new URLSearchParams(JSON.parse(text || '{}') as Record<string, string>);
  }
  return new URLSearchParams(text);
};

const json = (response: ServerResponse, status: number, body: unknown) =>
  response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));

/** GitHub's login rule: 1 to 39 letters, digits or single hyphens, not starting or ending with one. */
/** The verified primary address every stand-in account has. */
export const accountEmail = (login: string): string => `${login.toLowerCase()}@users.code-host.test`;

export const LOGIN_PATTERN = /^[A-Za-z0-9](?:[A-Za-z0-9]|-(?=[A-Za-z0-9])){0,38}$/;

const authorizePage = (params: URLSearchParams, error?: string) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Sign in to the code host (local)</title>
<style>body{font-family:system-ui,sans-serif;max-width:28rem;margin:4rem auto;padding:0 1rem}label,input,button{display:block;margin:.5rem 0}input{padding:.4rem;width:100%}button{padding:.5rem 1rem}</style></head>
<body><h1>Code host (local stand-in)</h1>
<p>The Stack Control Plane asks to read your profile and email addresses.</p>
${error ? `<p role="alert" style="color:#b00">${escapeHtml(error)}</p>` : ''}
<form method="post" action="/login/oauth/authorize">
${[...params].map(([k, v]) => `<input type="hidden" name="${escapeHtml(k)}" value="${escapeHtml(v)}">`).join('\n')}
<label for="login">Sign in as (any login)</label>
<input id="login" name="login" autocomplete="username" required>
<button type="submit" name="decision" value="authorize">Authorize</button>
<button type="submit" name="decision" value="deny" formnovalidate>Deny</button>
</form></body></html>`;

export const startCodeHost = async (
  options: { port?: number; clientId?: string; clientSecret?: string } = {},
): Promise<LocalCodeHost> => {
  const clientId = options.clientId ?? 'local-client-id';
  const clientSecret = options.clientSecret ?? 'local-client-secret';
  const codes = new Map<string, PendingCode>();
  const tokens = new Map<string, string>();
  const emailOverrides = new Map<string, CodeHostEmail[]>();
  let failExchange = false;

  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    const url = new URL(request.url ?? '/', 'http://localhost');
    if (request.method === 'GET' && url.pathname === '/login/oauth/authorize') {
      if (url.searchParams.get('client_id') !== clientId)
        return json(response, 400, { error: 'unknown client_id' });
      if (
        url.searchParams.get('code_challenge_method') !== 'S256' ||
        !url.searchParams.get('code_challenge')
      ) {
        return json(response, 400, { error: 'PKCE S256 code_challenge required' });
      }
      response
        .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
        .end(authorizePage(url.searchParams));
      return;
    }
    if (request.method === 'POST' && url.pathname === '/login/oauth/authorize') {
      const form = await readBody(request);
      const redirect = new URL(form.get('redirect_uri') ?? '');
      const state = form.get('state') ?? '';
      if (form.get('decision') === 'deny') {
        redirect.search = new URLSearchParams({
          error: 'access_denied',
          error_description: 'The user has denied your application access.',
          state,
        }).toString();
        response.writeHead(302, { location: redirect.toString() }).end();
        return;
      }
      const login = form.get('login') ?? '';
      if (!LOGIN_PATTERN.test(login)) {
        const params = new URLSearchParams(form);
        for (const key of ['login', 'decision']) params.delete(key);
        response
          .writeHead(400, { 'content-type': 'text/html; charset=utf-8' })
          .end(authorizePage(params, 'Enter a login: letters, digits and single hyphens.'));
        return;
      }
      const code = randomBytes(10).toString('hex');
      codes.set(code, {
        login,
        redirectUri: redirect.toString(),
        codeChallenge: form.get('code_challenge') ?? '',
        expiresAt: Date.now() + 600_000,
      });
      redirect.search = new URLSearchParams({ code, state }).toString();
      response.writeHead(302, { location: redirect.toString() }).end();
      return;
    }
    if (request.method === 'POST' && url.pathname === '/login/oauth/access_token') {
      if (failExchange) {
        failExchange = false;
        return json(response, 503, { message: 'unavailable' });
      }
      const form = await readBody(request);
      if (form.get('client_id') !== clientId || form.get('client_secret') !== clientSecret) {
        return json(response, 200, {
          error: 'incorrect_client_credentials',
          error_description: 'The client_id and/or client_secret passed are incorrect.',
        });
      }
      const pending = codes.get(form.get('code') ?? '');
      codes.delete(form.get('code') ?? '');
      const verifier = form.get('code_verifier') ?? '';
      const challenge = createHash('sha256').update(verifier).digest('base64url');
      if (
        !pending ||
        pending.expiresAt < Date.now() ||
        pending.redirectUri !== form.get('redirect_uri') ||
        challenge !== pending.codeChallenge
      ) {
        return json(response, 200, {
          error: 'bad_verification_code',
          error_description: 'The code passed is incorrect or expired.',
        });
      }
      const accessToken = `gho_${randomBytes(18).toString('hex')}`;
      tokens.set(accessToken, pending.login);
      return json(response, 200, {
        access_token: accessToken,
        token_type: 'bearer',
        scope: 'read:user,user:email',
      });
    }
    const login = tokens.get((request.headers.authorization ?? '').replace(/^Bearer\s+/i, ''));
    if (request.method === 'GET' && (url.pathname === '/user' || url.pathname === '/user/emails')) {
      if (!login) return json(response, 401, { message: 'Bad credentials' });
      if (url.pathname === '/user') return json(response, 200, { id: accountId(login), login, type: 'User' });
      return json(
        response,
        200,
        emailOverrides.get(login.toLowerCase()) ?? [
          { email: accountEmail(login), primary: true, verified: true },
        ],
      );
    }
    json(response, 404, { message: 'Not Found' });
  };

  const server: Server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => json(response, 500, { message: String(error) }));
  });
  const port = await listenOn(server, options.port ?? 0, '127.0.0.1');
  return {
    url: `http://127.0.0.1:${port}`,
    clientId,
    clientSecret,
    setEmails: (login, emails) => emailOverrides.set(login.toLowerCase(), emails),
    failNextExchange: () => {
      failExchange = true;
    },
    stop: () => closeServer(server),
  };
};

/** The environment that points the sign-in handlers at a local code host. */
export const codeHostEnvironment = (codeHost: LocalCodeHost) =>
  ({
    CODE_HOST_AUTHORIZE_URL: `${codeHost.url}/login/oauth/authorize`,
    CODE_HOST_TOKEN_URL: `${codeHost.url}/login/oauth/access_token`,
    CODE_HOST_API_URL: codeHost.url,
    CODE_HOST_CLIENT_ID: codeHost.clientId,
    CODE_HOST_CLIENT_SECRET: codeHost.clientSecret,
  }) satisfies Environment;
