/**
 * Shared pieces of the abuse and resilience suites: a configuration whose every secret is a
 * distinctive value (so a leak is unambiguous in logs), a raw HTTP client that sends exactly the
 * bytes, headers and path it is given (duplicate headers, odd paths), and small polling helpers.
 */
import { createHmac } from 'node:crypto';
import { type Agent, request as httpRequest } from 'node:http';

/** Every secret of {@link abuseConfig}: long, distinctive, never a substring of anything else. */
export const ABUSE_SECRETS = {
  upstreamPassword: 'UpStr3am-Pw-7f3a9c-abuse',
  opsPassword: 'Ops-Pw-2b8d41e6-abuse',
  reporterPassword: 'Reporter-Pw-9c1e77a0-abuse',
  writerPassword: 'Writer-Pw-4e0f2d93-abuse',
  siteToken: 'SiteTok-5a6b7c8d9e-abuse',
  metaAppSecret: 'MetaApp-Sec-1f2e3d4c-abuse',
  metaVerifyToken: 'MetaVerify-Tok-8a7b6c5d-abuse',
  metaPageToken: 'MetaPage-Tok-3c4d5e6f-abuse',
  googleKey: 'GoogleKey-0d1e2f3a4b-abuse',
  typeformSecret: 'Typeform-Sec-6e7f8a9b-abuse',
  webflowSecret: 'Webflow-Sec-2a3b4c5d-abuse',
  rdToken: 'RdTok-7e8f9a0b1c-abuse',
  unbounceToken: 'UnbTok-4d5e6f7a8b-abuse',
  elementorToken: 'ElemTok-9b8a7f6e5d-abuse',
  whatsappAppSecret: 'WaApp-Sec-5c6d7e8f-abuse',
  whatsappVerifyToken: 'WaVerify-Tok-1a2b3c4d-abuse',
  tiktokToken: 'TikTok-Tok-6f5e4d3c-abuse',
  tiktokAccessToken: 'TikTokAccess-Tok-0a9b8c7d-abuse',
  googleFormsSecret: 'GForms-Sec-5c6d7e8f9a-abuse',
  tallySecret: 'Tally-Sec-1b2c3d4e5f-abuse',
  jotformToken: 'JotTok-8f9a0b1c2d-abuse',
  hotmartHottok: 'Hottok-3e4f5a6b7c-abuse',
  hubspotSecret: 'HubSpot-Sec-0a1b2c3d4e-abuse',
  kommoToken: 'KommoTok-6f7a8b9c0d-abuse',
  kommoAccessToken: 'KommoAccess-Tok-2d3e4f5a6b-abuse',
  wordpressToken: 'WpTok-7c8d9e0f1a-abuse',
  wixToken: 'WixTok-4b5c6d7e8f-abuse',
} as const;

export const UPSTREAM_USER = 'gw-upstream-user';

export const CLIENTS = {
  ops: { username: 'ops', password: ABUSE_SECRETS.opsPassword },
  reporter: { username: 'reporter', password: ABUSE_SECRETS.reporterPassword },
  writer: { username: 'writer', password: ABUSE_SECRETS.writerPassword },
} as const;

export interface AbuseConfigOptions {
  /** Base URL of the upstream (the sandbox replaces it when the runtime starts one). */
  baseUrl?: string;
  maxPerSecond?: number;
  maxPerMinute?: number;
}

/** The demo configuration's shape with every source, and distinctive secrets. */
export function abuseConfig(options: AbuseConfigOptions = {}) {
  const s = ABUSE_SECRETS;
  return {
    upstream: {
      baseUrl: options.baseUrl ?? 'http://127.0.0.1:4010',
      username: UPSTREAM_USER,
      password: s.upstreamPassword,
      maxPerSecond: options.maxPerSecond ?? 20,
      maxPerMinute: options.maxPerMinute ?? 1200,
      timeoutMs: 5000,
    },
    clients: [
      { ...CLIENTS.ops, roles: ['prospects:write', 'report:read', 'admin'] },
      { ...CLIENTS.reporter, roles: ['report:read'] },
      { ...CLIENTS.writer, roles: ['prospects:write'] },
    ],
    profiles: {
      site: {
        source: 'form',
        token: s.siteToken,
        allowedOrigins: ['https://lp.example.com'],
        defaults: { idBranch: 1, marketingType: 'Site' },
        fieldMap: { qual_seu_cpf: 'cpf' },
      },
      meta: {
        source: 'meta',
        appSecret: s.metaAppSecret,
        verifyToken: s.metaVerifyToken,
        pageAccessToken: s.metaPageToken,
        graphBaseUrl: 'http://127.0.0.1:4010/graph',
        defaults: { idBranch: 2 },
      },
      google: { source: 'google', key: s.googleKey, defaults: { idBranch: 1 } },
      typeform: { source: 'typeform', secret: s.typeformSecret, defaults: { idBranch: 1 } },
      webflow: { source: 'webflow', secret: s.webflowSecret, defaults: { idBranch: 1 } },
      rd: { source: 'rdstation', token: s.rdToken, defaults: { idBranch: 1 } },
      unbounce: { source: 'unbounce', token: s.unbounceToken, defaults: { idBranch: 1 } },
      elementor: { source: 'elementor', token: s.elementorToken, defaults: { idBranch: 1 } },
      native: { source: 'prospect', defaults: { idBranch: 1 } },
      whatsapp: {
        source: 'whatsapp',
        appSecret: s.whatsappAppSecret,
        verifyToken: s.whatsappVerifyToken,
        defaults: { idBranch: 1 },
      },
      tiktok: {
        source: 'tiktok',
        token: s.tiktokToken,
        accessToken: s.tiktokAccessToken,
        advertiserId: '7387511059776798737',
        apiBaseUrl: 'http://127.0.0.1:4010/tiktok/open_api/v1.3',
        defaults: { idBranch: 1 },
        // A backfill with the ops client lists the sandbox's (empty) download: nothing stored.
        forms: { '7400000000000000001': {} },
      },
      googleforms: {
        source: 'googleforms',
        secret: s.googleFormsSecret,
        defaults: { idBranch: 1 },
      },
      tally: { source: 'tally', secret: s.tallySecret, defaults: { idBranch: 1 } },
      jotform: { source: 'jotform', token: s.jotformToken, defaults: { idBranch: 1 } },
      hotmart: { source: 'hotmart', hottok: s.hotmartHottok, defaults: { idBranch: 1 } },
      hubspot: {
        source: 'hubspot',
        secret: s.hubspotSecret,
        url: 'https://leads.example.com/leads/hubspot',
        defaults: { idBranch: 1 },
      },
      kommo: {
        source: 'kommo',
        token: s.kommoToken,
        accessToken: s.kommoAccessToken,
        apiBaseUrl: 'http://127.0.0.1:4010/kommo',
        defaults: { idBranch: 1 },
      },
      wordpress: {
        source: 'wordpress',
        token: s.wordpressToken,
        plugin: 'gravity-forms',
        defaults: { idBranch: 1 },
      },
      wix: { source: 'wix', token: s.wixToken, defaults: { idBranch: 1 } },
    },
    report: { branches: [1, 2, 3], refreshSeconds: 900 },
  };
}

export const PROFILE_NAMES = [
  'site',
  'meta',
  'google',
  'typeform',
  'webflow',
  'rd',
  'unbounce',
  'elementor',
  'native',
  'whatsapp',
  'tiktok',
  'googleforms',
  'tally',
  'jotform',
  'hotmart',
  'hubspot',
  'kommo',
  'wordpress',
  'wix',
] as const;

export function basicHeader(username: string, password: string): string {
  return `Basic ${Buffer.from(`${username}:${password}`, 'utf8').toString('base64')}`;
}

/** Every secret value a log must never show: the secrets and the Basic headers built on them. */
export function forbiddenSecrets(): { label: string; value: string }[] {
  const out: { label: string; value: string }[] = Object.entries(ABUSE_SECRETS).map(
    ([label, value]) => ({ label, value }),
  );
  for (const [name, client] of Object.entries(CLIENTS)) {
    const header = basicHeader(client.username, client.password).slice('Basic '.length);
    out.push({ label: `Basic base64 of ${name}`, value: header });
  }
  out.push({
    label: 'Basic base64 of the upstream credentials',
    value: basicHeader(UPSTREAM_USER, ABUSE_SECRETS.upstreamPassword).slice('Basic '.length),
  });
  return out;
}

export interface RawRequest {
  method: string;
  /** Path and query exactly as written on the request line. */
  path: string;
  /** Flat `[name, value, name, value...]`, duplicates allowed. */
  headers: string[];
  body?: Buffer;
}

export type RawResult =
  | {
      ok: true;
      status: number;
      headers: Record<string, string | string[] | undefined>;
      body: Buffer;
    }
  | { ok: false; error: string };

/** Sends exactly this request (no normalisation of the path, duplicate headers kept). */
export function rawRequest(
  baseUrl: string,
  req: RawRequest,
  options: { agent?: Agent; timeoutMs?: number } = {},
): Promise<RawResult> {
  const url = new URL(baseUrl);
  const body = req.body ?? Buffer.alloc(0);
  const headers = [...req.headers];
  if (!headers.some((h, i) => i % 2 === 0 && h.toLowerCase() === 'content-length')) {
    headers.push('Content-Length', String(body.length));
  }
  // With array headers Node adds no Host, and an HTTP/1.1 server answers 400 without one.
  if (!headers.some((h, i) => i % 2 === 0 && h.toLowerCase() === 'host')) {
    headers.unshift('Host', url.host);
  }
  return new Promise((resolve) => {
    let done = false;
    const finish = (result: RawResult) => {
      if (done) return;
      done = true;
      resolve(result);
    };
    let client: ReturnType<typeof httpRequest>;
    try {
      client = httpRequest(
        {
          host: url.hostname,
          port: url.port,
          method: req.method,
          path: req.path,
          headers,
          agent: options.agent,
          timeout: options.timeoutMs ?? 40_000,
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () =>
            finish({
              ok: true,
              status: res.statusCode ?? 0,
              headers: res.headers,
              body: Buffer.concat(chunks),
            }),
          );
          res.on('error', (error) => finish({ ok: false, error: String(error) }));
        },
      );
    } catch (error) {
      finish({ ok: false, error: `client refused to build the request: ${String(error)}` });
      return;
    }
    client.on('timeout', () => {
      client.destroy(new Error('timeout'));
    });
    client.on('error', (error) => finish({ ok: false, error: String(error) }));
    client.end(body);
  });
}

export interface SandboxProspect {
  idProspect: number;
  receivedAt: string;
  body: Record<string, unknown>;
}

export async function sandboxProspects(sandboxUrl: string): Promise<SandboxProspect[]> {
  const response = await fetch(new URL('/_sandbox/prospects', sandboxUrl));
  if (!response.ok) throw new Error(`/_sandbox/prospects answered ${response.status}`);
  return (await response.json()) as SandboxProspect[];
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Polls `check` until it returns a value other than undefined, or throws after `timeoutMs`. */
export async function waitFor<T>(
  what: string,
  check: () => Promise<T | undefined>,
  timeoutMs = 20_000,
  everyMs = 200,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined) return value;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() > deadline) {
      throw new Error(`timed out waiting for ${what}${lastError ? `: ${String(lastError)}` : ''}`);
    }
    await sleep(everyMs);
  }
}

/** A valid CPF (11 digits, check digits computed) from 9 base digits. */
export function cpfFrom(base9: string): string {
  const digits = base9.split('').map(Number);
  const check = (ds: number[]) => {
    const sum = ds.reduce((acc, d, i) => acc + d * (ds.length + 1 - i), 0);
    const rest = (sum * 10) % 11;
    return rest === 10 ? 0 : rest;
  };
  const d1 = check(digits);
  const d2 = check([...digits, d1]);
  return `${base9}${d1}${d2}`;
}

export function maskCpf(cpf: string): string {
  return `${cpf.slice(0, 3)}.${cpf.slice(3, 6)}.${cpf.slice(6, 9)}-${cpf.slice(9)}`;
}

export function hmacHex(algorithm: 'sha256' | 'sha1', key: string, ...parts: (string | Buffer)[]) {
  const hmac = createHmac(algorithm, key);
  for (const part of parts) hmac.update(part);
  return hmac.digest('hex');
}
