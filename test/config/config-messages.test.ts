/**
 * The configuration's words (functions/config/config-messages.ts): every message a schema of the
 * configuration can give reads in Portuguese, JSON syntax errors say where, and no message
 * quotes a checked value.
 */
import { describe, expect, it } from 'vitest';
import type * as z from 'zod/mini';
import { settingsSchema } from '../../functions/config/config-aws.ts';
import { parseConfig } from '../../functions/config/config-local.ts';
import {
  describeConfigIssue,
  jsonSyntaxMessage,
  schemaMessage,
} from '../../functions/config/config-messages.ts';
import { configSchema, profileSchema } from '../../functions/config/config-schema.ts';
import { parseJson } from '../../functions/domain/json.ts';
import { deployConfigSchema } from '../../infra/config.ts';

interface Def {
  error?: (issue: unknown) => unknown;
  checks?: { _zod: { def: Def } }[];
  shape?: Record<string, z.ZodMiniType>;
  options?: z.ZodMiniType[];
  [key: string]: unknown;
}

/** Every message written into the configuration's schemas (their checks and refinements). */
function schemaMessages(...schemas: z.ZodMiniType[]): Set<string> {
  const seen = new Set<unknown>();
  const messages = new Set<string>();
  const note = (def: Def) => {
    const message = def.error?.({});
    if (typeof message === 'string') messages.add(message);
  };
  const walk = (schema: unknown): void => {
    const def = (schema as { _zod?: { def: Def } })?._zod?.def;
    if (!def || seen.has(schema)) return;
    seen.add(schema);
    note(def);
    for (const check of def.checks ?? []) note(check._zod.def);
    for (const key of ['innerType', 'in', 'out', 'element', 'valueType', 'keyType', 'catchall']) {
      walk(def[key]);
    }
    for (const child of Object.values(def.shape ?? {})) walk(child);
    for (const option of def.options ?? []) walk(option);
  };
  for (const schema of schemas) walk(schema);
  return messages;
}

const ENGLISH = /\b(must|be|is|are|the|and|only|names|too|either|or|of|such|with|before)\b/i;

describe('the configuration in Portuguese', () => {
  it('words every message of the schemas in Portuguese, those written in English included', () => {
    // Act
    const messages = schemaMessages(
      configSchema,
      settingsSchema,
      deployConfigSchema,
      profileSchema,
    );

    // Assess: the walk found the schemas' messages, and none reads English once worded
    expect(messages.size).toBeGreaterThan(15);
    const english = [...messages].map(schemaMessage).filter((message) => ENGLISH.test(message));
    expect(english).toEqual([]);
  });

  it('words zod issues without the checked value', () => {
    const result = profileSchema.safeParse(
      { source: 'form', token: 12345, defaults: { idBranch: 'sete' }, dateOrder: 'YMD' },
      { reportInput: true },
    );
    const lines = result.success ? [] : result.error.issues.map(describeConfigIssue);
    expect(lines).toEqual([
      'deve ser um texto, não um número inteiro',
      'deve ser um número, não um texto',
      'deve ser um de "DMY", "MDY"',
    ]);
    expect(lines.join(' ')).not.toMatch(/12345|sete|YMD/);
  });

  it('says where JSON breaks, in Portuguese, with its line and column', () => {
    const cases = ['{\n  "a": 1,\n}', '{"a" 1}', '[1, 2', '{"a": 1, "a": 2}'].map((text) => {
      try {
        parseJson(text);
        return 'parsed';
      } catch (error) {
        return jsonSyntaxMessage(text, error);
      }
    });
    expect(cases).toEqual([
      "falta uma chave entre aspas (veio '}') (linha 3, coluna 1)",
      "falta ':' depois do nome da chave (veio '1') (linha 1, coluna 6)",
      "falta um item da lista ou ']' (o arquivo terminou antes) (linha 1, coluna 6)",
      "a chave 'a' aparece duas vezes (linha 1, coluna 11)",
    ]);
  });

  it('refuses a local configuration without quoting its secrets', () => {
    let message = '';
    try {
      parseConfig({
        upstream: { baseUrl: 'x', username: 'u', password: 7, maxPerSecond: 1, maxPerMinute: 1 },
        clients: [{ username: 'ops', password: '   ', roles: ['admin'] }],
        profiles: { site: { source: 'form', token: ['hunter2'], defaults: { idBranch: 1 } } },
      });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message.split('\n')).toEqual([
      'Configuração inválida em configuração:',
      '  upstream.baseUrl: deve ser uma URL válida',
      '  upstream.password: deve ser um texto, não um número inteiro',
      '  clients.0.password: não pode ficar vazio',
      '  profiles.site.token: deve ser um texto, não uma lista',
    ]);
    expect(message).not.toContain('hunter2');
  });
});
