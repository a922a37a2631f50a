/**
 * The operator CLI's HTTP client: the gateway's base URL and Basic credentials, JSON in and out,
 * and the gateway's error shape turned into a CliError with a sentence for people. It asks for
 * Portuguese (`Accept-Language: pt-BR`), so the gateway's messages it prints are the operator's
 * language; the error `code`s are the same in every language. The password is never part of a
 * message.
 */
import { CliError } from './output.ts';

export interface Credentials {
  user: string;
  password: string;
}

export interface ApiAnswer<T> {
  status: number;
  body: T;
}

/** `{"error": {"code", "message", "details"}}`, the gateway's refusals. */
interface ErrorBody {
  error?: { code?: unknown; message?: unknown; details?: unknown };
}

function describeDetail(detail: unknown): string {
  if (typeof detail === 'string') return detail;
  if (detail && typeof detail === 'object' && 'message' in detail) {
    const { field, message } = detail as { field?: unknown; message?: unknown };
    return field ? `${String(field)}: ${String(message)}` : String(message);
  }
  return JSON.stringify(detail);
}

export class ApiClient {
  constructor(
    readonly baseUrl: string,
    private readonly credentials: Credentials | undefined,
    private readonly fetchImpl: typeof fetch = fetch,
  ) {}

  /**
   * The path (with its query) on the gateway, with `json` as its JSON body when given; rejects
   * with a CliError on a refusal.
   */
  async request<T>(method: string, path: string, json?: unknown): Promise<ApiAnswer<T>> {
    const url = new URL(
      path.replace(/^\//, ''),
      this.baseUrl.endsWith('/') ? this.baseUrl : `${this.baseUrl}/`,
    );
    const headers: Record<string, string> = {
      accept: 'application/json',
      'accept-language': 'pt-BR',
    };
    if (json !== undefined) headers['content-type'] = 'application/json';
    if (this.credentials) {
      const { user, password } = this.credentials;
      headers.authorization = `Basic ${Buffer.from(`${user}:${password}`, 'utf8').toString('base64')}`;
    }
    let response: Response;
    try {
      response = await this.fetchImpl(url, {
        method,
        headers,
        ...(json !== undefined && { body: JSON.stringify(json) }),
      });
    } catch (error) {
      const { cause } = error as { cause?: { code?: string; message?: string } };
      const why = cause?.code ?? cause?.message ?? String(error);
      throw new CliError(
        `não foi possível falar com o gateway em ${this.baseUrl} (${why}): ele está rodando (npm start), e o --url está certo?`,
      );
    }
    const text = await response.text();
    let body: unknown = text;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {}
    if (response.ok) return { status: response.status, body: body as T };
    throw this.refusal(method, url.pathname, response.status, body);
  }

  private refusal(method: string, path: string, status: number, body: unknown): CliError {
    const error = (body as ErrorBody | undefined)?.error;
    const code = typeof error?.code === 'string' ? error.code : `http_${status}`;
    // A 401 is API Gateway's fixed answer (kernel/routes.ts BASIC_AUTH), in one language only:
    // said here in Portuguese; every other refusal is the gateway's own message.
    const message =
      status === 401
        ? 'usuário ou senha não aceitos'
        : typeof error?.message === 'string'
          ? error.message
          : `HTTP ${status}`;
    const details = Array.isArray(error?.details) ? error.details.map(describeDetail) : [];
    const hint =
      status === 401
        ? this.credentials
          ? ' (confira --user / LEADS_USER e LEADS_PASSWORD)'
          : ' (informe --user ou LEADS_USER, e LEADS_PASSWORD)'
        : status === 403
          ? ' (este cliente não tem o papel que a rota exige)'
          : '';
    return new CliError(`${method} ${path}: ${message} [${code}]${hint}`, details, body);
  }
}
