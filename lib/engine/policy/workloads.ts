/**
 * The workload part of a SyncPolicy (`spec.workloads`): what a tenant's Pods may have on the host
 * beyond the hardened default.
 */
import { isRecord } from '../../common/index.js';

/** A DNS-1123 subdomain, the form of a service account name. */
const SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

function isDnsSubdomain(value: string): boolean {
  return value.length <= 253 && SUBDOMAIN.test(value);
}

/** What tenant Pods may have on the host. Absent fields mean the hardened default. */
export interface WorkloadPolicy {
  /**
   * Host network, PID or IPC namespaces, host ports, `hostPath` volumes and privileged
   * containers. Default false: a Pod asking for any of them is a Skip that says so.
   */
  allowHostAccess?: boolean;
  /** The host service account host Pods run as; default: the host namespace's `default`. */
  hostServiceAccountName?: string;
}

/** Parses `spec.workloads`; every problem goes to `problems`. */
export function parseWorkloadPolicy(value: unknown, problems: string[]): WorkloadPolicy {
  const policy: WorkloadPolicy = {};
  if (!isRecord(value)) {
    problems.push('spec.workloads must be an object');
    return policy;
  }
  const { allowHostAccess, hostServiceAccountName } = value;
  if (allowHostAccess !== undefined) {
    if (typeof allowHostAccess === 'boolean') policy.allowHostAccess = allowHostAccess;
    else problems.push('spec.workloads.allowHostAccess must be true or false');
  }
  if (hostServiceAccountName !== undefined) {
    if (typeof hostServiceAccountName === 'string' && isDnsSubdomain(hostServiceAccountName)) {
      policy.hostServiceAccountName = hostServiceAccountName;
    } else problems.push('spec.workloads.hostServiceAccountName must be a service account name');
  }
  return policy;
}
