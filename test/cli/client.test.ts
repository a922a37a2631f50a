/**
 * The operator CLI asks the gateway for Portuguese (`Accept-Language: pt-BR`) and prints the
 * gateway's message as it comes, with the stable code; `--json` prints the body untouched. A
 * fake gateway answers in the language the request asks for, as the real one does.
 */
import { describe, expect, it } from 'vitest';
import { main } from '../../cli/leads.ts';

/** A gateway that refuses every request in the language asked for, and records the requests. */
function refusingGateway(seen: Headers[]): typeof fetch {
  return async (_url, init) => {
    const headers = new Headers(init?.headers);
    seen.push(headers);
    const portuguese = !headers.get('accept-language')?.startsWith('en');
    const message = portuguese ? 'não há lead ld_nope' : 'no lead ld_nope';
    return new Response(JSON.stringify({ error: { code: 'not_found', message, details: [] } }), {
      status: 404,
      headers: { 'content-type': 'application/json' },
    });
  };
}

async function leads(args: string[], seen: Headers[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(args, {
    env: { LEADS_URL: 'http://gateway.test', LEADS_USER: 'ops', LEADS_PASSWORD: 'secret-pw' },
    io: { out: (text) => out.push(text), err: (text) => err.push(text) },
    fetch: refusingGateway(seen),
  });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

describe('the CLI and the gateway’s language', () => {
  it('asks for Portuguese and prints the gateway’s Portuguese message with its code', async () => {
    // Act
    const seen: Headers[] = [];
    const shown = await leads(['show', 'ld_nope'], seen);

    // Assess
    expect(seen.map((headers) => headers.get('accept-language'))).toEqual(['pt-BR']);
    expect(shown).toEqual({
      code: 1,
      out: '',
      err: 'erro: GET /admin/leads/ld_nope: não há lead ld_nope [not_found]',
    });
  });

  it('prints the body as JSON on stdout with --json, the sentence on stderr', async () => {
    // Act
    const shown = await leads(['show', 'ld_nope', '--json'], []);

    // Assess
    expect(shown.code).toBe(1);
    expect(JSON.parse(shown.out)).toEqual({
      error: { code: 'not_found', message: 'não há lead ld_nope', details: [] },
    });
    expect(shown.err).toMatch(/^erro: .*\[not_found\]$/);
  });
});
