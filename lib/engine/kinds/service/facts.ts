/** What the Service kind's turn reads for its translator (`service-turn.ts`, `service-ranges.ts`). */
import type { ServiceRanges } from './cluster-ip.js';

/** The Service's facts (`HostFacts` of `../frame/translator.ts`). */
export interface ServiceFacts {
  /**
   * The host's service ranges, read when a Service without a host copy is taken in: its create
   * asks for the tenant's cluster IP only inside them and outside their static band
   * (`cluster-ip.ts`).
   */
  serviceRanges?: ServiceRanges;
}
