/**
 * What the Pod Security checks (`pod-security-baseline.ts`, `pod-security-restricted.ts`) share:
 * the shape of a check, of what it finds, and the walks over a Pod's containers and security
 * contexts, read from the host Pod as JSON (the apiserver validated the tenant Pod, but a field of
 * the wrong type is still read as absent, never trusted).
 */
import { isRecord } from '../../../../common/index.js';

export type Json = Record<string, unknown>;

/** What a check reads of the host Pod: its annotations and its spec. */
export interface PodView {
  annotations: Readonly<Record<string, string>>;
  spec: Json;
}

/**
 * One field that breaks a check: where it is, and the value that is not allowed (`SYS_ADMIN`) or,
 * when `required`, the value the field must have (`false`, `"ALL"`).
 */
export interface Finding {
  path: string;
  value: string;
  required?: boolean;
}

/**
 * One check of the Pod Security Standards, as upstream names it (`k8s.io/pod-security-admission`
 * `policy/check_*.go`, the latest version of each): its id, its level, the policy version its
 * rules are upstream's since, the baseline checks it replaces at the restricted level, and what it
 * finds on a Pod (nothing: the Pod passes).
 */
export interface PodSecurityCheck {
  readonly id: string;
  readonly level: 'baseline' | 'restricted';
  /** The minor of the policy version (`1.<since>`) whose rules this is: upstream's newest. */
  readonly since: number;
  readonly overrides?: readonly string[];
  findings(pod: PodView): Finding[];
}

/** `value` when it is an object, otherwise `undefined` (JSON `null` is Go's nil). */
export function record(value: unknown): Json | undefined {
  return isRecord(value) ? value : undefined;
}

/** The objects of a list (anything else: none). */
export function records(value: unknown): Json[] {
  return Array.isArray(value) ? value.filter(isRecord) : [];
}

/** Whether a JSON value is set (Go: a non-nil pointer). */
export function isSet(value: unknown): boolean {
  return value !== undefined && value !== null;
}

/** A container with where it is: `spec.containers[web]`. */
export interface ContainerAt {
  path: string;
  container: Json;
  /** Its `securityContext`, when it has one. */
  security: Json | undefined;
}

/**
 * The Pod's containers in upstream's order (`visitContainers`): init containers, containers,
 * ephemeral containers.
 */
export function containersOf(spec: Json): ContainerAt[] {
  const found: ContainerAt[] = [];
  for (const list of ['initContainers', 'containers', 'ephemeralContainers']) {
    for (const container of records(spec[list])) {
      found.push({
        path: `spec.${list}[${String(container.name)}]`,
        container,
        security: record(container.securityContext),
      });
    }
  }
  return found;
}

/** The Pod-level security context and where it is. */
export function podSecurityContext(spec: Json): { path: string; security: Json | undefined } {
  return { path: 'spec.securityContext', security: record(spec.securityContext) };
}

/**
 * Every security context of the Pod, the Pod's first, then each container's, for checks that
 * read the same field at both levels (seccomp, AppArmor, SELinux, runAsUser, hostProcess).
 */
export function securityContexts(spec: Json): { path: string; security: Json | undefined }[] {
  return [
    podSecurityContext(spec),
    ...containersOf(spec).map(({ path, security }) => ({
      path: `${path}.securityContext`,
      security,
    })),
  ];
}

/** A Pod in a user namespace (`hostUsers: false`), which some checks relax for (1.35+). */
export function inUserNamespace(spec: Json): boolean {
  return spec.hostUsers === false;
}

/** A Windows Pod (`spec.os.name: windows`), which some restricted checks exempt (1.25+). */
export function isWindowsPod(spec: Json): boolean {
  return record(spec.os)?.name === 'windows';
}

/** A finding's value in words: strings as they are, anything else as JSON. */
export function shown(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}
