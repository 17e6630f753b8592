import { homedir } from 'node:os';
import { join } from 'node:path';
import {
  COREDNS_VERSION,
  KUBERNETES_VERSION,
  KWOK_VERSION,
  METRICS_SERVER_VERSION,
} from './versions.js';

/** Root of tenantplane's caches, outside any repository: `$XDG_CACHE_HOME/tenantplane`. */
export function cacheRoot(): string {
  const base = process.env.XDG_CACHE_HOME || join(homedir(), '.cache');
  return join(base, 'tenantplane');
}

/** Directory holding the binaries of the pinned release, keyed by version. */
export function binaryDir(version: string = KUBERNETES_VERSION): string {
  return join(cacheRoot(), `kubernetes-v${version}`, 'bin');
}

/** Directory holding the kwok binary, keyed by kwok's own version (it moves independently). */
export function kwokBinaryDir(version: string = KWOK_VERSION): string {
  return join(cacheRoot(), `kwok-v${version}`, 'bin');
}

/** Directory holding the CoreDNS binary, keyed by CoreDNS's own version. */
export function corednsBinaryDir(version: string = COREDNS_VERSION): string {
  return join(cacheRoot(), `coredns-v${version}`, 'bin');
}

/** Directory holding the metrics-server binary, keyed by its own version. */
export function metricsServerBinaryDir(version: string = METRICS_SERVER_VERSION): string {
  return join(cacheRoot(), `metrics-server-v${version}`, 'bin');
}

/**
 * State of the long-lived local default control plane (`npm start`, `cluster:up`): PKI, etcd
 * data, kubeconfigs and PIDs. Kept across runs so a second `npm start` finds the same objects.
 */
export function defaultStateDir(): string {
  const base = process.env.XDG_STATE_HOME || join(homedir(), '.local', 'state');
  return join(base, 'tenantplane', 'local');
}
