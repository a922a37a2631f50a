/** The source adapters by source name: what `profiles.<name>.source` selects. */
import type { SourceName } from '../shared/config-schema.ts';
import type { SourceAdapter } from './source.ts';
import { elementorSource } from './sources/elementor.ts';
import { formSource } from './sources/form.ts';
import { googleSource } from './sources/google.ts';
import { metaSource } from './sources/meta.ts';
import { prospectSource } from './sources/prospect.ts';
import { rdstationSource } from './sources/rdstation.ts';
import { typeformSource } from './sources/typeform.ts';
import { unbounceSource } from './sources/unbounce.ts';
import { webflowSource } from './sources/webflow.ts';

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
