/**
 * `spec.workloads.kubeletGateway`: where the tenant apiserver reaches the kubelet API of the
 * tenant's Nodes (`kubectl logs`, `exec`, `attach`, `port-forward`). The tenant's Nodes are copies
 * of host nodes; no kubelet answers at their host addresses for the tenant, so every tenant Node
 * names the kubelet gateway instead (`tenantplane gateway`, docs/kubelet-gateway.md): its address
 * in `status.addresses`, its port in `status.daemonEndpoints.kubeletEndpoint.Port`.
 */
import { isRecord } from '../../common/index.js';
import { isDnsSubdomain } from './workload-scheduling.js';

/** The kubelet gateway the tenant's Nodes point at. */
export interface KubeletGateway {
  /** An IPv4 or IPv6 address, or a DNS name. */
  address: string;
  /** The gateway's TCP port (1-65535). */
  port: number;
}

const IPV4 = /^(25[0-5]|2[0-4]\d|1?\d?\d)(\.(25[0-5]|2[0-4]\d|1?\d?\d)){3}$/;
const IPV6 = /^[0-9a-f:.]+$/i;

/** Whether `text` is an IPv4 or IPv6 address (a DNS name is not). */
export function isIpAddress(text: string): boolean {
  return IPV4.test(text) || (text.includes(':') && IPV6.test(text));
}

/** Parses the `kubeletGateway` of `workloads` (when set) onto `policy`; problems go to `problems`. */
export function withKubeletGateway(
  policy: { kubeletGateway?: KubeletGateway },
  workloads: Record<string, unknown>,
  problems: string[],
): void {
  const value = workloads.kubeletGateway;
  if (value === undefined) return;
  const field = 'spec.workloads.kubeletGateway';
  if (!isRecord(value)) {
    problems.push(`${field} must be an object with an address and a port`);
    return;
  }
  const { address, port } = value;
  const addressOk =
    typeof address === 'string' && (isIpAddress(address) || isDnsSubdomain(address));
  if (!addressOk) problems.push(`${field}.address must be an IP address or a DNS name`);
  const portOk = typeof port === 'number' && Number.isInteger(port) && port >= 1 && port <= 65535;
  if (!portOk) problems.push(`${field}.port must be a port number (1-65535)`);
  if (addressOk && portOk) policy.kubeletGateway = { address, port };
}
