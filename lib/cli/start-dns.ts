/**
 * What `npm start` shows of the tenant DNS (lib/cli/start.ts): the sample Service's name asked of
 * the local plane's CoreDNS (docs/tenant-dns.md), the address it answers, and the addresses of
 * the tenant Service and of its host copy beside it, so a reader sees which one a tenant Pod on
 * the host would dial.
 */
import { Resolver } from 'node:dns/promises';
import type { ClusterApi, KubeObject } from '../ports/index.js';
import { DEMO_HOST_NAMESPACE, demoHostName } from './demo.js';
import { WORKLOAD_NAME, WORKLOAD_NAMESPACE } from './demo-workload.js';
import { messageOf } from './errors.js';

const SERVICE = { apiVersion: 'v1', kind: 'Service' };

const clusterIp = (service: KubeObject | undefined): string | undefined => {
  const ip = (service?.spec as { clusterIP?: unknown } | undefined)?.clusterIP;
  return typeof ip === 'string' ? ip : undefined;
};

/** The lines `npm start` prints under its tenant DNS heading. */
export async function tenantDnsLines(
  dns: string | undefined,
  tenantApi: ClusterApi,
  hostApi: ClusterApi,
): Promise<string[]> {
  if (!dns) return ['(The local plane runs no tenant DNS: it was started without workloads.)'];
  const name = `${WORKLOAD_NAME}.${WORKLOAD_NAMESPACE}.svc.cluster.local`;
  const copy = demoHostName(WORKLOAD_NAMESPACE, WORKLOAD_NAME);
  const [tenantIp, hostIp] = [
    clusterIp(await tenantApi.get(SERVICE, WORKLOAD_NAMESPACE, WORKLOAD_NAME)),
    clusterIp(await hostApi.get(SERVICE, DEMO_HOST_NAMESPACE, copy)),
  ];
  const resolver = new Resolver({ timeout: 2000, tries: 2 });
  resolver.setServers([dns]);
  let answer: string;
  try {
    answer = (await resolver.resolve4(name)).join(', ');
  } catch (error) {
    answer = `no answer (${messageOf(error)})`;
  }
  const agree =
    hostIp === undefined
      ? 'it has no host copy yet'
      : hostIp === answer
        ? 'the same address: a tenant Pod on the host reaches the host copy by the tenant name'
        : `not the address answered: tenant and host cluster IPs are not aligned`;
  return [
    `CoreDNS with the Corefile of deploy/tenant-dns, reading the tenant apiserver, on ${dns} (what spec.workloads.tenantDns names on a real host):`,
    `  ${name} -> ${answer}`,
    `  tenant Service ${WORKLOAD_NAMESPACE}/${WORKLOAD_NAME}: cluster IP ${tenantIp ?? '(none)'}`,
    `  host copy ${DEMO_HOST_NAMESPACE}/${copy}: cluster IP ${hostIp ?? '(none)'} (${agree})`,
    '  kubernetes.default.svc.cluster.local is never answered (NXDOMAIN): the address would be the host apiserver',
  ];
}
