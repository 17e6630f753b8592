/**
 * The baseline checks of the Pod Security Standards, each the latest version of upstream's
 * `k8s.io/pod-security-admission/policy/check_<id>.go` (v0.37.2), with its own allowed values:
 * what keeps a Pod from the node's namespaces, devices, kernel and security modules. The
 * restricted level runs these too, except the ones its own checks override
 * (`pod-security-restricted.ts`).
 */
import {
  containersOf,
  type Finding,
  inUserNamespace,
  isSet,
  type PodSecurityCheck,
  podSecurityContext,
  record,
  records,
  securityContexts,
  shown,
} from './pod-security-support.js';

/** Capabilities a baseline container may add: the container runtimes' default set. */
const BASELINE_CAPABILITIES: ReadonlySet<string> = new Set([
  'AUDIT_WRITE',
  'CHOWN',
  'DAC_OVERRIDE',
  'FOWNER',
  'FSETID',
  'KILL',
  'MKNOD',
  'NET_BIND_SERVICE',
  'SETFCAP',
  'SETGID',
  'SETPCAP',
  'SETUID',
  'SYS_CHROOT',
]);

/** SELinux types allowed (1.31+); an unset type is `""`. */
const SELINUX_TYPES: ReadonlySet<string> = new Set([
  '',
  'container_t',
  'container_init_t',
  'container_kvm_t',
  'container_engine_t',
]);

/** Sysctls that are namespaced and isolated from other Pods on the node (1.37+). */
const SAFE_SYSCTLS: ReadonlySet<string> = new Set([
  'kernel.shm_rmid_forced',
  'net.ipv4.ip_local_port_range',
  'net.ipv4.tcp_syncookies',
  'net.ipv4.ping_group_range',
  'net.ipv4.ip_unprivileged_port_start',
  'net.ipv4.ip_local_reserved_ports',
  'net.ipv4.tcp_keepalive_time',
  'net.ipv4.tcp_fin_timeout',
  'net.ipv4.tcp_keepalive_intvl',
  'net.ipv4.tcp_keepalive_probes',
  'net.ipv4.tcp_rmem',
  'net.ipv4.tcp_wmem',
  'net.ipv4.tcp_slow_start_after_idle',
  'net.ipv4.tcp_notsent_lowat',
]);

/** Profile types allowed for seccomp and AppArmor: the runtime's default or a node-local one. */
const CONFINED_PROFILES: ReadonlySet<unknown> = new Set(['RuntimeDefault', 'Localhost']);

/** The deprecated per-container AppArmor annotations, still read by the check. */
const APPARMOR_ANNOTATION = 'container.apparmor.security.beta.kubernetes.io/';

const NOT_ALLOWED_TRUE = (path: string): Finding => ({ path, value: 'true' });

/** The profile `field` (`seccompProfile`, `appArmorProfile`) of every security context. */
function profileFindings(spec: Record<string, unknown>, field: string): Finding[] {
  const found: Finding[] = [];
  for (const { path, security } of securityContexts(spec)) {
    const profile = record(security?.[field]);
    if (profile && !CONFINED_PROFILES.has(profile.type)) {
      found.push({ path: `${path}.${field}.type`, value: shown(profile.type ?? '') });
    }
  }
  return found;
}

/** Non-default `/proc` masks (`procMount` other than `Default`); used by both levels. */
export function procMountFindings(spec: Record<string, unknown>): Finding[] {
  const found: Finding[] = [];
  for (const { path, security } of containersOf(spec)) {
    const procMount = security?.procMount;
    if (isSet(procMount) && procMount !== 'Default') {
      found.push({ path: `${path}.securityContext.procMount`, value: shown(procMount) });
    }
  }
  return found;
}

/** The probe and lifecycle handlers of a container that may name a host, with their paths. */
function handlersOf(container: Record<string, unknown>, path: string) {
  const lifecycle = record(container.lifecycle);
  return [
    ...['livenessProbe', 'readinessProbe', 'startupProbe'].map((field) => ({
      at: `${path}.${field}`,
      handler: record(container[field]),
    })),
    ...['postStart', 'preStop'].map((field) => ({
      at: `${path}.lifecycle.${field}`,
      handler: record(lifecycle?.[field]),
    })),
  ];
}

/** The baseline checks, in upstream's order (by id). */
export const BASELINE_CHECKS: readonly PodSecurityCheck[] = [
  {
    id: 'appArmorProfile',
    level: 'baseline',
    since: 0,
    findings({ spec, annotations }) {
      const found = profileFindings(spec, 'appArmorProfile');
      for (const key of Object.keys(annotations).sort()) {
        const value = annotations[key] ?? '';
        if (!key.startsWith(APPARMOR_ANNOTATION)) continue;
        if (value === '' || value === 'runtime/default' || value.startsWith('localhost/')) continue;
        found.push({ path: `metadata.annotations[${key}]`, value });
      }
      return found;
    },
  },
  {
    id: 'capabilities_baseline',
    level: 'baseline',
    since: 0,
    findings({ spec }) {
      const found: Finding[] = [];
      for (const { path, security } of containersOf(spec)) {
        const add = record(security?.capabilities)?.add;
        for (const capability of Array.isArray(add) ? add : []) {
          if (!BASELINE_CAPABILITIES.has(String(capability))) {
            found.push({
              path: `${path}.securityContext.capabilities.add`,
              value: shown(capability),
            });
          }
        }
      }
      return found;
    },
  },
  {
    id: 'hostNamespaces',
    level: 'baseline',
    since: 0,
    findings({ spec }) {
      return ['hostNetwork', 'hostPID', 'hostIPC']
        .filter((field) => spec[field] === true)
        .map((field) => NOT_ALLOWED_TRUE(`spec.${field}`));
    },
  },
  {
    id: 'hostPathVolumes',
    level: 'baseline',
    since: 0,
    findings({ spec }) {
      return records(spec.volumes)
        .filter((volume) => isSet(volume.hostPath))
        .map((volume) => ({
          path: `spec.volumes[${String(volume.name)}].hostPath`,
          value: 'a hostPath volume',
        }));
    },
  },
  {
    id: 'hostPorts',
    level: 'baseline',
    since: 0,
    findings({ spec }) {
      const found: Finding[] = [];
      for (const { path, container } of containersOf(spec)) {
        records(container.ports).forEach((port, index) => {
          if (isSet(port.hostPort) && port.hostPort !== 0) {
            found.push({ path: `${path}.ports[${index}].hostPort`, value: shown(port.hostPort) });
          }
        });
      }
      return found;
    },
  },
  {
    id: 'hostProbesAndHostLifecycle',
    level: 'baseline',
    since: 34,
    findings({ spec }) {
      const found: Finding[] = [];
      for (const { path, container } of containersOf(spec)) {
        for (const { at, handler } of handlersOf(container, path)) {
          for (const action of ['httpGet', 'tcpSocket']) {
            const host = record(handler?.[action])?.host;
            if (isSet(host) && host !== '') {
              found.push({ path: `${at}.${action}.host`, value: shown(host) });
            }
          }
        }
      }
      return found;
    },
  },
  {
    id: 'privileged',
    level: 'baseline',
    since: 0,
    findings({ spec }) {
      return containersOf(spec)
        .filter(({ security }) => security?.privileged === true)
        .map(({ path }) => NOT_ALLOWED_TRUE(`${path}.securityContext.privileged`));
    },
  },
  {
    // 1.35+: any /proc mask in a user namespace (`hostUsers: false`).
    id: 'procMount',
    level: 'baseline',
    since: 35,
    findings: ({ spec }) => (inUserNamespace(spec) ? [] : procMountFindings(spec)),
  },
  {
    id: 'seLinuxOptions',
    level: 'baseline',
    since: 31,
    findings({ spec }) {
      const found: Finding[] = [];
      for (const { path, security } of securityContexts(spec)) {
        const options = record(security?.seLinuxOptions);
        if (!options) continue;
        const type = isSet(options.type) ? options.type : '';
        if (typeof type !== 'string' || !SELINUX_TYPES.has(type)) {
          found.push({ path: `${path}.seLinuxOptions.type`, value: shown(type) });
        }
        for (const field of ['user', 'role']) {
          const value = options[field];
          if (isSet(value) && value !== '') {
            found.push({ path: `${path}.seLinuxOptions.${field}`, value: shown(value) });
          }
        }
      }
      return found;
    },
  },
  {
    // 1.19+: the fields only (the seccomp annotations are no longer read).
    id: 'seccompProfile_baseline',
    level: 'baseline',
    since: 19,
    findings: ({ spec }) => profileFindings(spec, 'seccompProfile'),
  },
  {
    id: 'sysctls',
    level: 'baseline',
    since: 32,
    findings({ spec }) {
      const { path, security } = podSecurityContext(spec);
      const found: Finding[] = [];
      records(security?.sysctls).forEach((sysctl, index) => {
        if (!SAFE_SYSCTLS.has(String(sysctl.name))) {
          found.push({ path: `${path}.sysctls[${index}].name`, value: shown(sysctl.name) });
        }
      });
      return found;
    },
  },
  {
    id: 'windowsHostProcess',
    level: 'baseline',
    since: 0,
    findings({ spec }) {
      return securityContexts(spec)
        .filter(({ security }) => record(security?.windowsOptions)?.hostProcess === true)
        .map(({ path }) => NOT_ALLOWED_TRUE(`${path}.windowsOptions.hostProcess`));
    },
  },
];
