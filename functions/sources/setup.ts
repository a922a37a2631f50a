/**
 * The set-up kit of a profile: what a person needs to connect a platform to it. Each source
 * declares its own recipe with `defineSource({ setup })` (where the URL goes in the platform,
 * what each secret is, a realistic sample request and how it is signed); this module turns a
 * recipe and a profile into the kit: the exact URL to paste, where its secrets live, a curl
 * that sends the sample (the signature computed in the shell with openssl), a plain HTML form
 * for landing pages, and the signed sample itself (the console's test lead sends it through the
 * real path). A source without a recipe still gets its URL and secrets (`genericSetup`), so a
 * new source fits before anyone writes its kit.
 *
 * Secrets: the kit prints their values only when told to (`secretValues: 'inline'`, the local
 * configuration file of `npm start`); for a deployed stack the curl reads them from Secrets
 * Manager in the shell and pages show where they live, never what they are.
 *
 * Pure: node:crypto for the test lead's signature, nothing else.
 */

import { createHmac } from 'node:crypto';
import { sampleEmail } from '../domain/test-lead.ts';
import { escapeHtml } from '../kernel/html.ts';

/** How the sample request proves who sent it. */
export type SampleAuth =
  /** The profile's `setting` as `X-Lead-Token` (`header`) or `?token=` (`query`). */
  | { kind: 'token'; setting: string; in: 'header' | 'query' }
  /**
   * HMAC-SHA256 with the profile's `setting`, over the body (or `<timestamp>:<body>` with the
   * timestamp in milliseconds sent as `timestampHeader`), in `header` as `prefix` + digest.
   * With `before`, the signed text is `before` + body (+ the timestamp, no separator): HubSpot's
   * v3 signs `POST` + the URL + body + timestamp.
   */
  | {
      kind: 'hmac';
      setting: string;
      header: string;
      prefix: string;
      encoding: 'hex' | 'base64';
      timestampHeader?: string;
      before?: string;
    }
  /** The profile's `setting` as it is, in the platform's own `header` (Hotmart's Hottok). */
  | { kind: 'header'; setting: string; header: string }
  /** The profile's `setting` inside the body, where the sample writes `placeholder` (Google). */
  | { kind: 'body'; setting: string; placeholder: string }
  /** Basic credentials of an API client with the `prospects:write` role. */
  | { kind: 'basic' };

/** A request as the platform sends it, before it is signed. */
export interface SampleRequest {
  contentType: string;
  /** The exact body (one line: signatures cover these bytes). */
  body: string;
  /**
   * What finds the sample's lead in the console's search when it is not the stamp's e-mail
   * (`SAMPLE_PERSON.email(stamp)`): the e-mail of a lead the platform's API holds under fixed
   * ids (Meta's Graph lead, TikTok's, Kommo's), the number of a lead without an e-mail (WhatsApp).
   */
  search?: string;
}

/** A source's set-up recipe (its `setup` in `defineSource`). */
export interface SourceSetup<P> {
  /** Where, in the platform, the URL is pasted: one step per item, in the platform's words. */
  steps: readonly string[];
  /** What each secret setting is and where the platform shows or takes it. */
  secrets?: Readonly<Record<string, string>>;
  /** How this profile's requests authenticate (Webflow's depends on the profile's `auth`). */
  auth(profile: P): SampleAuth;
  /**
   * A realistic request as the platform sends it. `stamp` makes it a new lead (its ids, its
   * e-mail), so that two test leads are two leads; the kit's curl uses the stamp `kit`.
   */
  sample(stamp: string, profile: P): SampleRequest;
  /** What else to know when testing (Meta's Graph lookup). */
  notes?: readonly string[];
  /** Offer the plain HTML form snippet (token, honeypot, redirect): landing pages. */
  htmlForm?: boolean;
  /**
   * What `npm start`'s sandbox must know for the sample to complete: POSTed to the sandbox at
   * start (Meta's Graph lead behind the sample webhook).
   */
  sandbox?: readonly { path: string; body: unknown }[];
}

/** The person in every sample: obviously a test, valid for every check of the mapping. */
export const SAMPLE_PERSON = {
  firstName: 'Ana',
  lastName: 'Teste',
  fullName: 'Ana Teste',
  /** International, as ad platforms send it. */
  phone: '+5511987654321',
  /** As a person types it into a form. */
  typedPhone: '(11) 98765-4321',
  /** domain/test-lead.ts knows it: a lead with it is marked a test in its notes. */
  email: sampleEmail,
} as const;

/** The stamp of the kit's curl (the test lead uses a fresh one each time). */
export const KIT_STAMP = 'kit';

/** What a kit needs to know about where it is used. */
export interface KitContext {
  /** The API's base URL without a trailing slash: `https://abc.execute-api.../prod`. */
  baseUrl: string;
  /** Where a profile's secrets live, in words (a Secrets Manager secret, the config file). */
  secretsWhere(profile: string): string;
  /**
   * `inline`: print the secrets' values (the local configuration file, demo values);
   * otherwise the curl reads them from this Secrets Manager secret id.
   */
  secretValues:
    | 'inline'
    | {
        secretId(profile: string): string;
        /** The profile's entry in that secret, when one secret holds many (a shard). */
        entry?(profile: string): string;
      };
  /** An API client with `prospects:write` whose password may be printed (local only). */
  basicClient?: { username: string; password: string };
}

/** One secret of a profile: its key, what it is, where it lives. */
export interface KitSecret {
  key: string;
  what: string;
  where: string;
}

/** The kit of one profile. */
export interface ProfileKit {
  profile: string;
  source: string;
  label: string;
  /** The URL to paste (a token in it is shown as `<token>` unless secrets are printed). */
  url: string;
  /** Where to paste it in the platform. */
  steps: string[];
  secrets: KitSecret[];
  /** A shell script (sh, curl, openssl; jq for deployed secrets) that sends the sample lead. */
  curl: string;
  /** A plain HTML form for a landing page (form profiles). */
  htmlForm?: string;
  notes: string[];
}

/** A source as the kit sees it (sources/source.ts `Source`). */
export interface KitSource<P> {
  name: string;
  label: string;
  secretKeys: readonly string[];
  setup?: SourceSetup<P>;
}

type Settings = Record<string, unknown>;

const shq = (text: string) => `'${text.replaceAll("'", `'\\''`)}'`;

function setting(profile: unknown, key: string): string {
  const value = (profile as Settings)[key];
  return typeof value === 'string' ? value : '';
}

function leadUrl(baseUrl: string, profile: string): string {
  return `${baseUrl.replace(/\/+$/, '')}/leads/${encodeURIComponent(profile)}`;
}

/** The URL a platform is given: with `?token=` when the platform sends the token that way. */
function urlToPaste(
  base: string,
  auth: SampleAuth | undefined,
  token: string | undefined,
  tokenKey: string,
): string {
  if (auth?.kind !== 'token' || auth.in !== 'query') return base;
  return `${base}?token=${token === undefined ? `<${tokenKey}>` : encodeURIComponent(token)}`;
}

/** The kit of profile `name` (see the module comment). */
export function profileKit<P>(
  name: string,
  profile: P,
  source: KitSource<P>,
  context: KitContext,
): ProfileKit {
  const setup = source.setup;
  const inline = context.secretValues === 'inline';
  const where = context.secretsWhere(name);
  const secrets = source.secretKeys.map((key) => ({
    key,
    what: setup?.secrets?.[key] ?? 'uma chave secreta deste perfil',
    where: `${where}, chave "${key}"`,
  }));
  const base = leadUrl(context.baseUrl, name);
  const auth = setup?.auth(profile);
  const tokenKey = auth?.kind === 'token' ? auth.setting : 'token';
  const url = urlToPaste(base, auth, inline ? setting(profile, tokenKey) : undefined, tokenKey);
  const kit: ProfileKit = {
    profile: name,
    source: source.name,
    label: source.label,
    url,
    steps: setup
      ? [...setup.steps]
      : [`Informe este endereço à plataforma (docs/sources.md descreve a origem ${source.label}).`],
    secrets,
    curl: setup && auth ? curlScript(name, profile, setup, auth, base, context) : '',
    notes: [...(setup?.notes ?? [])],
  };
  if (setup?.htmlForm) kit.htmlForm = htmlFormSnippet(profile, base, inline, tokenKey);
  return kit;
}

// ---------------------------------------------------------------------------------------------
// The curl

function secretLine(
  variable: string,
  key: string,
  name: string,
  profile: unknown,
  context: KitContext,
): string {
  if (context.secretValues === 'inline') return `${variable}=${shq(setting(profile, key))}`;
  const id = context.secretValues.secretId(name);
  const entry = context.secretValues.entry?.(name);
  const path = entry === undefined ? `.${key}` : `.[${JSON.stringify(entry)}].${key}`;
  return `${variable}=$(aws secretsmanager get-secret-value --secret-id ${shq(id)} --query SecretString --output text | jq -r ${shq(path)})`;
}

function curlScript<P>(
  name: string,
  profile: P,
  setup: SourceSetup<P>,
  auth: SampleAuth,
  url: string,
  context: KitContext,
): string {
  const sample = setup.sample(KIT_STAMP, profile);
  const lines: string[] = [];
  const headers = [`-H ${shq(`Content-Type: ${sample.contentType}`)}`];
  let target = shq(url);
  let body = `BODY=${shq(sample.body)}`;
  let credentials: string | undefined;
  switch (auth.kind) {
    case 'token':
      lines.push(secretLine('TOKEN', auth.setting, name, profile, context));
      if (auth.in === 'header') headers.push('-H "X-Lead-Token: $TOKEN"');
      else target = `"${url}?token=$TOKEN"`;
      break;
    case 'header':
      lines.push(secretLine('TOKEN', auth.setting, name, profile, context));
      headers.push(`-H "${auth.header}: $TOKEN"`);
      break;
    case 'hmac': {
      lines.push(secretLine('SECRET', auth.setting, name, profile, context));
      if (auth.before !== undefined) lines.push(`BEFORE=${shq(auth.before)}`);
      const ts = auth.timestampHeader ? '$TS' : '';
      const signed =
        auth.before !== undefined
          ? `"$BEFORE$BODY${ts}"`
          : auth.timestampHeader
            ? `"$TS:$BODY"`
            : `"$BODY"`;
      const digest =
        auth.encoding === 'hex'
          ? `printf '%s' ${signed} | openssl dgst -sha256 -hmac "$SECRET" | sed 's/^.* //'`
          : `printf '%s' ${signed} | openssl dgst -sha256 -hmac "$SECRET" -binary | base64`;
      if (auth.timestampHeader) {
        lines.push('TS=$(($(date +%s) * 1000))');
        headers.push(`-H "${auth.timestampHeader}: $TS"`);
      }
      lines.push(body);
      body = '';
      lines.push(`SIG=$(${digest})`);
      headers.push(`-H "${auth.header}: ${auth.prefix}$SIG"`);
      break;
    }
    case 'body': {
      lines.push(secretLine('KEY', auth.setting, name, profile, context));
      const at = sample.body.indexOf(auth.placeholder);
      if (at >= 0) {
        const before = sample.body.slice(0, at);
        const after = sample.body.slice(at + auth.placeholder.length);
        body = `BODY=${shq(before)}"$KEY"${shq(after)}`;
      }
      break;
    }
    case 'basic':
      credentials =
        context.basicClient !== undefined
          ? `-u ${shq(`${context.basicClient.username}:${context.basicClient.password}`)}`
          : '-u "$LEADS_USER:$LEADS_PASSWORD"';
      if (context.basicClient === undefined) {
        lines.push(
          '# An API client with the prospects:write role: LEADS_USER and LEADS_PASSWORD (read -rs LEADS_PASSWORD).',
        );
      }
      break;
  }
  if (body) lines.push(body);
  const parts = [
    `curl -sS -X POST ${target}`,
    ...headers,
    ...(credentials ? [credentials] : []),
    '--data-binary "$BODY"',
  ];
  lines.push(parts.join(' \\\n  '));
  return lines.join('\n');
}

// ---------------------------------------------------------------------------------------------
// The HTML form

function htmlFormSnippet(profile: unknown, url: string, inline: boolean, tokenKey: string): string {
  const token = inline ? encodeURIComponent(setting(profile, tokenKey)) : 'SEU_TOKEN';
  const honeypot = setting(profile, 'honeypotField') || '_hp';
  const redirect = setting(profile, 'redirectUrl');
  const after = redirect
    ? `<!-- After sending, the visitor is taken to ${escapeHtml(redirect)} (the profile's redirectUrl). -->`
    : "<!-- Set the profile's redirectUrl to your thank-you page: without it the visitor sees our JSON answer. -->";
  return [
    `<form method="post" action="${escapeHtml(`${url}?token=${token}`)}" accept-charset="UTF-8">`,
    `  ${after}`,
    '  <p><label>Nome completo <input name="nome" autocomplete="name" required></label></p>',
    '  <p><label>E-mail <input name="email" type="email" autocomplete="email" required></label></p>',
    '  <p><label>WhatsApp com DDD <input name="celular" type="tel" autocomplete="tel" required></label></p>',
    '  <!-- Keep this field hidden and empty: bots fill it, and their posts are dropped. -->',
    `  <p style="position:absolute;left:-9999px" aria-hidden="true"><input name="${escapeHtml(honeypot)}" tabindex="-1" autocomplete="off"></p>`,
    '  <input type="hidden" name="utm_source"><input type="hidden" name="utm_medium">',
    '  <input type="hidden" name="utm_campaign"><input type="hidden" name="gclid"><input type="hidden" name="fbclid">',
    '  <button type="submit">Quero ser contactado</button>',
    '</form>',
    '<script>',
    "  // Copies utm_* and the click ids of the page's address into the form's hidden fields.",
    '  new URLSearchParams(location.search).forEach(function (value, key) {',
    '    var field = document.querySelector(\'form input[type="hidden"][name="\' + key + \'"]\');',
    '    if (field) field.value = value;',
    '  });',
    '</script>',
  ].join('\n');
}

// ---------------------------------------------------------------------------------------------
// The signed sample (the console's test lead)

/** A sample signed with an HMAC (`kind: 'hmac'`). */
export type HmacAuth = Extract<SampleAuth, { kind: 'hmac' }>;

/**
 * The headers that sign `body` as `auth` says, with `secret`, at `timestamp` (milliseconds, sent
 * only when the platform signs one), named as the platform names them: its timestamp, then its
 * signature. The test lead and the request collection (scripts/requests.ts) both sign this way.
 */
export function hmacHeaders(
  auth: HmacAuth,
  secret: string,
  body: string,
  timestamp: string,
): Record<string, string> {
  const stamped = auth.timestampHeader ? timestamp : '';
  const signed =
    auth.before !== undefined
      ? `${auth.before}${body}${stamped}`
      : auth.timestampHeader
        ? `${timestamp}:${body}`
        : body;
  const digest = createHmac('sha256', secret).update(signed, 'utf8').digest(auth.encoding);
  return {
    ...(auth.timestampHeader && { [auth.timestampHeader]: timestamp }),
    [auth.header]: `${auth.prefix}${digest}`,
  };
}

/** A request ready to send: the sample signed with the profile's real secrets. */
export interface SignedRequest {
  url: string;
  /** The URL without its token, for pages and logs. */
  shownUrl: string;
  headers: Record<string, string>;
  body: string;
  /** What finds its lead in the console's search: the e-mail (or number) it arrives with. */
  search: string;
}

/**
 * The sample of profile `name`, signed with its secrets (`profile` as the configuration holds
 * it, secrets included), ready to send to `baseUrl`. Undefined for a source without a recipe,
 * or a `basic` one without a client to send as.
 */
export function signedSample<P>(
  name: string,
  profile: P,
  source: KitSource<P>,
  options: {
    baseUrl: string;
    stamp: string;
    now?: Date;
    basicAuthorization?: string;
  },
): SignedRequest | undefined {
  const setup = source.setup;
  if (!setup) return undefined;
  const auth = setup.auth(profile);
  const sample = setup.sample(options.stamp, profile);
  const base = leadUrl(options.baseUrl, name);
  const headers: Record<string, string> = { 'content-type': sample.contentType };
  let body = sample.body;
  let url = base;
  switch (auth.kind) {
    case 'token': {
      const token = setting(profile, auth.setting);
      if (auth.in === 'header') headers['x-lead-token'] = token;
      else url = `${base}?token=${encodeURIComponent(token)}`;
      break;
    }
    case 'header':
      headers[auth.header.toLowerCase()] = setting(profile, auth.setting);
      break;
    case 'hmac': {
      const timestamp = String((options.now ?? new Date()).getTime());
      const signature = hmacHeaders(auth, setting(profile, auth.setting), body, timestamp);
      for (const [header, value] of Object.entries(signature))
        headers[header.toLowerCase()] = value;
      break;
    }
    case 'body':
      body = body.replace(
        auth.placeholder,
        JSON.stringify(setting(profile, auth.setting)).slice(1, -1),
      );
      break;
    case 'basic':
      if (!options.basicAuthorization) return undefined;
      headers.authorization = options.basicAuthorization;
      break;
  }
  const search = sample.search ?? SAMPLE_PERSON.email(options.stamp);
  return { url, shownUrl: base, headers, body, search };
}
