/** The source adapters by source name: what `profiles.<name>.source` selects. */
import type { SourceName } from '../config/config-schema.ts';
import { elementorSource } from './elementor.ts';
import { formSource } from './form.ts';
import { googleSource } from './google.ts';
import { metaSource } from './meta.ts';
import { prospectSource } from './prospect.ts';
import { rdstationSource } from './rdstation.ts';
import type { SourceAdapter } from './source.ts';
import { typeformSource } from './typeform.ts';
import { unbounceSource } from './unbounce.ts';
import { webflowSource } from './webflow.ts';

export const ADAPTERS: { [S in SourceName]: SourceAdapter<S> } = {
  form: formSource,
  meta: metaSource,
  google: googleSource,
  typeform: typeformSource,
  webflow: webflowSource,
  rdstation: rdstationSource,
  unbounce: unbounceSource,
  elementor: elementorSource,
  prospect: prospectSource,
};
