/** The core Endpoints' module: refused on the way to the host (`endpoints.ts` says why). */
import type { KindModule } from '../frame/kind-module.js';
import { ENDPOINTS_TRANSLATOR } from './endpoints.js';

/** Endpoints: the translator alone (it refuses them; slices are the way). */
export const ENDPOINTS_MODULE: KindModule = {
  kind: ENDPOINTS_TRANSLATOR.kind,
  translator: ENDPOINTS_TRANSLATOR,
};
