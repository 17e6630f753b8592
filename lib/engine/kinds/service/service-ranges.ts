/**
 * The host's service ranges, as its ServiceCIDRs say (`networking.k8s.io/v1`, the apiserver's
 * `--service-cluster-ip-range` and any added since): read at most once a pass, and only when a
 * Service is about to get a host copy or be realigned, so a steady pass never reads them. A read
 * that fails is not the kind's error: the create then asks for no address (the host allocates
 * and the tenant is realigned), which never takes an address the host keeps.
 */
import { errorMessage, isRecord } from '../../../common/index.js';
import { SERVICE_CIDR, withRequestDeadline } from '../../../ports/index.js';
import { workDeadline } from '../../bounds/deadlines.js';
import type { PassContext } from '../../context/pass-context.js';
import { attempt } from '../../errors.js';
import { listEveryPage } from '../../listing/every-page.js';
import type { ServiceRanges } from './cluster-ip.js';

/** The CIDRs of ServiceCIDR objects (those being deleted aside: the host allocates from none). */
export function rangesOf(objects: readonly unknown[]): string[] {
  const cidrs: string[] = [];
  for (const object of objects) {
    if (!isRecord(object) || !isRecord(object.spec)) continue;
    if (isRecord(object.metadata) && object.metadata.deletionTimestamp) continue;
    const listed = object.spec.cidrs;
    if (Array.isArray(listed)) for (const c of listed) if (typeof c === 'string') cidrs.push(c);
  }
  return cidrs;
}

/** The host's service ranges for one pass: one LIST, made on first need. */
export class HostServiceRanges {
  private read: Promise<ServiceRanges> | undefined;

  constructor(private readonly ctx: PassContext) {}

  /** The ranges (read once), or why they could not be read. */
  get(): Promise<ServiceRanges> {
    this.read ??= this.list();
    return this.read;
  }

  private async list(): Promise<ServiceRanges> {
    const { hostApi, bounds } = this.ctx.scope;
    const listed = await attempt(() =>
      withRequestDeadline(workDeadline(bounds.budget), () =>
        listEveryPage(hostApi, SERVICE_CIDR, bounds.budget.pageSize, {}),
      ),
    );
    if (!listed.ok) return { unreadable: errorMessage(listed.error) };
    const cidrs = rangesOf(listed.value);
    return cidrs.length > 0 ? { cidrs } : { unreadable: 'the host lists no ServiceCIDR' };
  }
}
