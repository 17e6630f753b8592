/**
 * Every field of a container (`io.k8s.api.core.v1.Container`, the same for init containers and
 * sidecars, and `EphemeralContainer`, Kubernetes 1.37) and of a security context
 * (`SecurityContext`, `PodSecurityContext`), and what the engine does with it on purpose
 * (`field-table.ts`). Pod Security (`../translate/pod-security.ts`) checks the host Pod at the
 * policy's level (`spec.workloads.podSecurity`, baseline by default): a violation is a Skip
 * naming the field, the level and the check.
 */
import { checked, copied, type FieldTable, translated } from './field-table.js';

const PSS = (check: string) => `Pod Security (${check})`;
const HOST_PROBE = PSS('hostProbesAndHostLifecycle: no host but the Pod’s own');

/** Container fields (containers and init containers, sidecars included). */
export const CONTAINER_FIELDS = {
  args: copied(),
  command: copied(),
  env: translated('references renamed to host copies; fieldRefs read the tenant Pod'),
  envFrom: translated('references renamed to host copies'),
  image: copied('updated on a running Pod'),
  imagePullPolicy: copied(),
  lifecycle: checked(HOST_PROBE),
  livenessProbe: checked(HOST_PROBE),
  name: copied(),
  ports: checked('a hostPort is refused unless spec.workloads.allowHostAccess'),
  readinessProbe: checked(HOST_PROBE),
  resizePolicy: copied(),
  resources: copied('a change is an in-place resize (pods/resize)'),
  restartPolicy: copied('Always makes an init container a sidecar'),
  restartPolicyRules: copied(),
  securityContext: checked('the SecurityContext table'),
  startupProbe: checked(HOST_PROBE),
  stdin: copied(),
  stdinOnce: copied(),
  terminationMessagePath: copied(),
  terminationMessagePolicy: copied(),
  tty: copied(),
  volumeDevices: copied('devices of the Pod’s own claims'),
  volumeMounts: copied('mounts of the Pod’s own volumes'),
  workingDir: copied(),
} as const satisfies FieldTable;

/**
 * Ephemeral container fields: the host refuses ephemeral containers at create, so the engine
 * leaves the whole list off the host Pod; every field goes with it.
 */
export const EPHEMERAL_CONTAINER_FIELDS = {
  ...Object.fromEntries(
    Object.keys(CONTAINER_FIELDS).map((field) => [field, translated('left off with the list')]),
  ),
  targetContainerName: translated('left off with the list'),
} as const satisfies FieldTable;

/** Container security context fields. */
export const SECURITY_CONTEXT_FIELDS = {
  allowPrivilegeEscalation: checked(PSS('allowPrivilegeEscalation, restricted')),
  appArmorProfile: checked(PSS('appArmorProfile')),
  capabilities: checked(PSS('capabilities_baseline, capabilities_restricted')),
  privileged: checked('refused unless spec.workloads.allowHostAccess; Pod Security (privileged)'),
  procMount: checked(PSS('procMount')),
  readOnlyRootFilesystem: copied(),
  runAsGroup: copied(),
  runAsNonRoot: checked(PSS('runAsNonRoot, restricted')),
  runAsUser: checked(PSS('runAsUser, restricted')),
  seLinuxOptions: checked(PSS('seLinuxOptions')),
  seccompProfile: checked(PSS('seccompProfile_baseline, seccompProfile_restricted')),
  windowsOptions: checked(PSS('windowsHostProcess')),
} as const satisfies FieldTable;

/** Pod security context fields. */
export const POD_SECURITY_CONTEXT_FIELDS = {
  appArmorProfile: checked(PSS('appArmorProfile')),
  fsGroup: copied(),
  fsGroupChangePolicy: copied(),
  runAsGroup: copied(),
  runAsNonRoot: checked(PSS('runAsNonRoot, restricted')),
  runAsUser: checked(PSS('runAsUser, restricted')),
  seLinuxChangePolicy: copied(),
  seLinuxOptions: checked(PSS('seLinuxOptions')),
  seccompProfile: checked(PSS('seccompProfile_baseline, seccompProfile_restricted')),
  supplementalGroups: copied(),
  supplementalGroupsPolicy: copied(),
  sysctls: checked(PSS('sysctls: the safe set only')),
  windowsOptions: checked(PSS('windowsHostProcess')),
} as const satisfies FieldTable;
