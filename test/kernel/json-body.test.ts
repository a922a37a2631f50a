/**
 * The guard's media-type check of the routes that read JSON (kernel/route-guard.ts
 * `jsonBodyAnswer`): what is taken as JSON and the 415 for anything else.
 */
import { describe, expect, it } from 'vitest';
import type { HttpRequest } from '../../functions/kernel/http.ts';
import { jsonBodyAnswer } from '../../functions/kernel/route-guard.ts';

function request(contentType: string | undefined, body = '{"a":1}'): HttpRequest {
  return {
    method: 'POST',
    headers: contentType === undefined ? {} : { 'content-type': contentType },
    query: {},
    body: Buffer.from(body),
    contentType: (contentType ?? '').split(';')[0]?.trim().toLowerCase() ?? '',
    receivedAt: new Date(),
  };
}

describe('jsonBodyAnswer', () => {
  it.each([
    'application/json',
    'Application/JSON',
    'application/json; charset=utf-8',
    'application/json;charset="UTF-8"',
    'application/json-patch+json',
    'application/merge-patch+json; charset=utf-8',
  ])('takes %s', (type) => {
    expect(jsonBodyAnswer(request(type))).toBeUndefined();
  });

  it('takes no body without a Content-Type (the route says what it lacks)', () => {
    expect(jsonBodyAnswer(request(undefined, ''))).toBeUndefined();
  });

  it.each([
    ['text/plain', 'text/plain'],
    ['text/plain; charset=utf-8', 'text/plain'],
    ['application/x-www-form-urlencoded', 'application/x-www-form-urlencoded'],
    ['multipart/form-data; boundary=x', 'multipart/form-data'],
    ['application/jsonp', 'application/jsonp'],
    ['application/json; charset=iso-8859-1', 'charset=iso-8859-1'],
  ])('answers 415 unsupported_media_type for %s', (type, said) => {
    const answer = jsonBodyAnswer(request(type));
    expect(answer?.statusCode).toBe(415);
    const body = JSON.parse(answer?.body ?? '{}');
    expect(body.error.code).toBe('unsupported_media_type');
    expect(body.error.message).toContain('application/json');
    expect(body.error.message).toContain(said);
    expect(answer?.headers?.['cache-control']).toBe('no-store');
  });

  it('answers 415 for a body without a Content-Type', () => {
    const answer = jsonBodyAnswer(request(undefined));
    expect(answer?.statusCode).toBe(415);
    expect(JSON.parse(answer?.body ?? '{}').error.message).toMatch(
      /sem Content-Type|no Content-Type/,
    );
  });
});
