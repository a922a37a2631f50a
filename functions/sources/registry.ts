/**
 * Every lead source, once: what `profiles.<name>.source` selects. A new source is one file in
 * this folder (`defineSource`) and one line here; the configuration's profile schema, the
 * secrets a deployed stack keeps per profile, the labels in notes, the intake's adapters, the
 * set-up kits and the API's description (docs/openapi.json, docs/requests.http) all come from
 * this list.
 */

import { elementorSource } from './elementor.ts';
import { formSource } from './form.ts';
import { googleSource } from './google.ts';
import { googleFormsSource } from './googleforms.ts';
import { hotmartSource } from './hotmart.ts';
import { hubspotSource } from './hubspot.ts';
import { jotformSource } from './jotform.ts';
import { kommoSource } from './kommo.ts';
import { metaSource } from './meta/index.ts';
import { prospectSource } from './prospect.ts';
import { rdstationSource } from './rdstation.ts';
import type { Source, SourceAdapter } from './source.ts';
import { tallySource } from './tally.ts';
import { tiktokSource } from './tiktok.ts';
import { typeformSource } from './typeform.ts';
import { unbounceSource } from './unbounce.ts';
import { webflowSource } from './webflow.ts';
import { whatsappSource } from './whatsapp.ts';
import { wixSource } from './wix.ts';
import { wordpressSource } from './wordpress.ts';

export const SOURCES = [
  formSource,
  metaSource,
  googleSource,
  typeformSource,
  webflowSource,
  rdstationSource,
  unbounceSource,
  elementorSource,
  prospectSource,
  whatsappSource,
  tiktokSource,
  googleFormsSource,
  tallySource,
  jotformSource,
  hotmartSource,
  hubspotSource,
  kommoSource,
  wordpressSource,
  wixSource,
] as const;

export type AnySource = (typeof SOURCES)[number];
export type SourceName = AnySource['name'];

/** The source names, in the registry's order. */
export const SOURCE_NAMES = SOURCES.map((source) => source.name) as readonly SourceName[] as [
  SourceName,
  ...SourceName[],
];

const BY_NAME: ReadonlyMap<string, AnySource> = new Map(SOURCES.map((s) => [s.name, s]));

/** The source of that name; undefined for a name no source has. */
export function sourceNamed(name: string): AnySource | undefined {
  return BY_NAME.get(name);
}

/**
 * The adapter that handles a profile of that source, typed for the profile as the caller has it
 * (a union of every source's profile): each source only ever sees its own profiles.
 */
export function adapterFor<P extends { source: string }>(profile: P): SourceAdapter<P> & Source {
  const source = BY_NAME.get(profile.source);
  if (!source) throw new RangeError(`no source named '${profile.source}'`);
  return source as unknown as SourceAdapter<P> & Source;
}

/** The settings of that source's profiles that are secrets (none for an unknown name). */
export function secretKeysOf(name: string): readonly string[] {
  return BY_NAME.get(name)?.secretKeys ?? [];
}

/** How people call the platform behind that source (the name itself when unknown). */
export function sourceLabel(name: string): string {
  return BY_NAME.get(name)?.label ?? name;
}
