/**
 * `GET /openapi.json`: the gateway's OpenAPI 3.1 document (docs/openapi.json, written by
 * `npm run openapi` from the route table and the handlers' schemas), bundled into the function.
 * No credentials: the document holds routes and shapes only, no data and no secret.
 */
import type { APIGatewayProxyResult } from 'aws-lambda';
import document from '../../docs/openapi.json' with { type: 'json' };

const body = JSON.stringify(document);

export async function handler(): Promise<APIGatewayProxyResult> {
  return {
    statusCode: 200,
    headers: {
      'content-type': 'application/json; charset=utf-8',
      'cache-control': 'public, max-age=300',
      'access-control-allow-origin': '*',
    },
    body,
  };
}
