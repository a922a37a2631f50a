/**
 * The body schemas the lead sources declare for docs/openapi.json (`docs().api.bodies` in each
 * source's file, functions/sources/docs.ts), by the names the OpenAPI tests check the committed
 * fixtures against.
 */
import type * as z from 'zod/mini';
import { sourceNamed } from '../../functions/sources/registry.ts';

/** The zod schema of source `name`'s `type` body; throws when it declares none. */
export function sourceBodySchema(name: string, type = 'application/json'): z.ZodMiniType {
  const body = sourceNamed(name)?.docs().api.bodies[type];
  if (!body || !('schema' in body)) throw new Error(`source ${name} declares no ${type} schema`);
  return body.schema;
}

export const metaWebhookSchema = sourceBodySchema('meta');
export const googleLeadSchema = sourceBodySchema('google');
export const typeformWebhookSchema = sourceBodySchema('typeform');
export const rdStationWebhookSchema = sourceBodySchema('rdstation');
export const whatsappWebhookSchema = sourceBodySchema('whatsapp');
export const tiktokWebhookSchema = sourceBodySchema('tiktok');
export const webflowWebhookSchema = sourceBodySchema('webflow');
export const prospectRequestSchema = sourceBodySchema('prospect');
