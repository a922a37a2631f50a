/**
 * What a source tells the people and programs that call it, declared in its own file with
 * `defineSource({ docs })` beside its set-up kit: its row of `POST /leads/{profile}` in the
 * OpenAPI document (how it authenticates, the security schemes it uses, its body schemas, its
 * answer) and its request in the request collection. scripts/openapi-document.ts and
 * scripts/requests.ts build docs/openapi.json and docs/requests.http from the registry's
 * sources alone, so a new source needs no edit there.
 *
 * `docs` is a function: the zod schemas and the text are built only when a script asks, never
 * when a deployed function imports the source (the intake bundles every source; its cold start
 * does not pay for its documentation). Types only: nothing here runs.
 */
import type * as z from 'zod/mini';
import type { SampleAuth } from './setup.ts';

/** JSON as it goes into the OpenAPI document. */
export type Json = Readonly<Record<string, unknown>>;

/**
 * A body schema under its component name in docs/openapi.json (`#/components/schemas/<id>`).
 * Sources that take the same body (the form fields) give the same id and description.
 */
export interface NamedSchema {
  id: string;
  description: string;
  schema: z.ZodMiniType;
}

/** A body: a named zod schema, or a small JSON Schema written inline (text/plain). */
export type BodySchema = NamedSchema | { inline: Json };

/** The source's row of `POST /leads/{profile}`. */
export interface SourceApiDoc {
  /**
   * The security schemes that authenticate it (any one of them), each declared in `schemes`
   * (`basicAuth`, the gateway's own, excepted); none when the key travels in the body (Google).
   */
  security: readonly string[];
  /**
   * The OpenAPI security schemes it uses, by name. Sources that share one (the lead token, Meta's
   * signature) declare it alike; the document refuses two different schemes of one name.
   */
  schemes?: Readonly<Record<string, Json>>;
  /** How a request proves who sent it, and the refusals (Markdown, one table cell). */
  authentication: string;
  /** Media type → its body. */
  bodies: Readonly<Record<string, BodySchema>>;
  /** What an accepted request is answered (Markdown, one table cell). */
  answer: string;
}

/**
 * A committed fixture of test/fixtures/leads/<source>/: `payload`, a platform's own JSON payload
 * (`<payload>.json`, rewritten on one line with its numbers as written, `change` laid over its
 * top level), or `request`, a request as received (`<request>.json`: `{headers, body}`).
 */
export type RequestFixture =
  | { payload: string; change?: Readonly<Record<string, string>> }
  | { request: string };

/**
 * The source's request in docs/requests.http: the fixture, POSTed to the demo configuration's
 * (config/demo.json) profile of the source, authenticated as the set-up kit's sample is
 * (`setup.auth`, signatures computed with the demo secret) unless `auth` says otherwise.
 */
export interface SourceRequestDoc {
  /** The request's title; ` (source <name>)` is added. */
  title: string;
  /** A line for people, above the request. */
  note?: string;
  fixture: RequestFixture;
  /**
   * The file's variable (`@<variable> = <demo value>`) that holds the credential the request
   * carries as is (a token in the URL or a header, Google's key in the body), so that a person
   * changes it in one place.
   */
  variable?: string;
  /** How it authenticates when not as `setup.auth` (the form's token in the URL). */
  auth?: SampleAuth;
  /** Headers besides the content type and the credentials (a landing page's Origin). */
  headers?: Readonly<Record<string, string>>;
}

export interface SourceDocs {
  api: SourceApiDoc;
  request: SourceRequestDoc;
}
