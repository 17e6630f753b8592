import { mkdir, readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { LocalClusterError } from './errors.js';
import { checkGo, goBuild, goEnv, isExecutable, prepareWrapperModule } from './go-build.js';
import { binaryDir, corednsBinaryDir, kwokBinaryDir, metricsServerBinaryDir } from './paths.js';
import { runCommand } from './run.js';
import {
  BINARY_PACKAGES,
  type BinaryName,
  COREDNS_MODULE,
  COREDNS_PACKAGE,
  COREDNS_VERSION,
  KUBERNETES_VERSION,
  type KubernetesBinaryName,
  KWOK_MODULE,
  KWOK_PACKAGE,
  KWOK_VERSION,
  METRICS_SERVER_MODULE,
  METRICS_SERVER_PACKAGE,
  METRICS_SERVER_VERSION,
  STAGING_VERSION,
  type StandaloneBinaryName,
} from './versions.js';

export type BinaryPaths = Record<BinaryName, string>;

export interface EnsureBinariesOptions {
  version?: string;
  /** Progress lines for a human (build steps); silent when omitted. */
  log?: (line: string) => void;
}

/** Paths the binaries of `version` (and the pinned kwok, CoreDNS and metrics-server) have, or will have, in the cache. */
export function binaryPaths(version: string = KUBERNETES_VERSION): BinaryPaths {
  const dir = binaryDir(version);
  const kube = Object.fromEntries(
    Object.keys(BINARY_PACKAGES).map((name) => [name, join(dir, name)]),
  ) as Record<KubernetesBinaryName, string>;
  return {
    ...kube,
    kwok: join(kwokBinaryDir(), 'kwok'),
    coredns: join(corednsBinaryDir(), 'coredns'),
    'metrics-server': join(metricsServerBinaryDir(), 'metrics-server'),
  };
}

/** True when every binary of `version` is already in the cache. */
export async function binariesCached(version: string = KUBERNETES_VERSION): Promise<boolean> {
  const paths = binaryPaths(version);
  const present = await Promise.all(Object.values(paths).map(isExecutable));
  return present.every(Boolean);
}

/**
 * Reads the release's own go.mod to learn its staging modules: each `k8s.io/<x> => ./staging/...`
 * replace becomes `k8s.io/<x> => k8s.io/<x> v0.Y.Z`, the published twin of that staging copy.
 */
async function stagingModules(
  buildDir: string,
  version: string,
  log: (l: string) => void,
): Promise<string[]> {
  log(`resolving k8s.io/kubernetes v${version} from the Go module proxy`);
  const out = await runCommand(
    'go',
    ['mod', 'download', '-json', `k8s.io/kubernetes@v${version}`],
    { cwd: buildDir, env: goEnv() },
  );
  const info = JSON.parse(out) as { GoMod?: string; Error?: string };
  if (!info.GoMod)
    throw new LocalClusterError(
      `go mod download k8s.io/kubernetes@v${version}: ${info.Error ?? 'no go.mod'}`,
    );
  const goMod = await readFile(info.GoMod, 'utf8');
  const modules = [...goMod.matchAll(/^\s*(k8s\.io\/[\w.-]+)\s*=>\s*\.\/staging\//gm)].map(
    (m) => m[1]!,
  );
  if (modules.length === 0)
    throw new LocalClusterError(
      `no staging replaces found in k8s.io/kubernetes v${version} go.mod`,
    );
  return modules;
}

function versionLdflags(version: string): string {
  const [major, minor] = version.split('.');
  const vars = {
    gitVersion: `v${version}`,
    gitMajor: major,
    gitMinor: minor,
    gitTreeState: 'clean',
    buildDate: '1970-01-01T00:00:00Z',
  };
  const flags = ['-s', '-w'];
  for (const pkg of ['k8s.io/component-base/version', 'k8s.io/client-go/pkg/version']) {
    for (const [name, value] of Object.entries(vars)) flags.push(`-X ${pkg}.${name}=${value}`);
  }
  return flags.join(' ');
}

/** Builds the missing binaries of the Kubernetes release's wrapper module. */
async function buildKubernetes(
  version: string,
  paths: BinaryPaths,
  log: (l: string) => void,
): Promise<void> {
  const missing: KubernetesBinaryName[] = [];
  for (const name of Object.keys(BINARY_PACKAGES) as KubernetesBinaryName[]) {
    if (!(await isExecutable(paths[name]))) missing.push(name);
  }
  if (missing.length === 0) return;
  const buildDir = join(dirname(binaryDir(version)), 'build');
  // `go mod download` runs in it before the wrapper module is written: on a cold cache it must exist.
  await mkdir(buildDir, { recursive: true });
  const staging = await stagingModules(buildDir, version, log);
  const stagingVersion =
    version === KUBERNETES_VERSION
      ? STAGING_VERSION
      : `v0.${version.split('.').slice(1).join('.')}`;
  const goMod = [
    'module tenantplane.local/kubernetes-binaries',
    '',
    'go 1.26.0',
    '',
    `require k8s.io/kubernetes v${version}`,
    '',
    'replace (',
    ...staging.map((m) => `\t${m} => ${m} ${stagingVersion}`),
    ')',
    '',
  ].join('\n');
  log('go mod tidy (downloads the modules the first time)');
  await prepareWrapperModule({
    dir: buildDir,
    goMod,
    packages: Object.values(BINARY_PACKAGES),
  });
  for (const name of missing) {
    log(`go build ${name} (${BINARY_PACKAGES[name]})`);
    const ms = await goBuild(buildDir, BINARY_PACKAGES[name], paths[name], versionLdflags(version));
    log(`built ${name} in ${Math.round(ms / 1000)} s`);
  }
}

/** A binary built in a wrapper module of its own: its module, version and main package. */
const STANDALONE: Record<StandaloneBinaryName, { module: string; version: string; pkg: string }> = {
  kwok: { module: KWOK_MODULE, version: KWOK_VERSION, pkg: KWOK_PACKAGE },
  coredns: { module: COREDNS_MODULE, version: COREDNS_VERSION, pkg: COREDNS_PACKAGE },
  'metrics-server': {
    module: METRICS_SERVER_MODULE,
    version: METRICS_SERVER_VERSION,
    pkg: METRICS_SERVER_PACKAGE,
  },
};

/**
 * Builds kwok, CoreDNS or metrics-server in a wrapper module of its own (beside the binary's cache directory),
 * since each needs newer shared modules than the Kubernetes release pins.
 */
async function buildStandalone(
  name: StandaloneBinaryName,
  paths: BinaryPaths,
  log: (l: string) => void,
): Promise<void> {
  if (await isExecutable(paths[name])) return;
  const { module, version, pkg } = STANDALONE[name];
  const buildDir = join(dirname(dirname(paths[name])), 'build');
  const goMod = [
    `module tenantplane.local/${name}-binaries`,
    '',
    'go 1.26.0',
    '',
    `require ${module} v${version}`,
    '',
  ].join('\n');
  log(`go mod tidy for ${name} v${version}`);
  await prepareWrapperModule({ dir: buildDir, goMod, packages: [pkg] });
  log(`go build ${name} (${pkg})`);
  const ms = await goBuild(buildDir, pkg, paths[name], '-s -w');
  log(`built ${name} in ${Math.round(ms / 1000)} s`);
}

/**
 * Builds the pinned release's kube-apiserver, kubectl, etcd, kube-scheduler and
 * kube-controller-manager, and the pinned kwok, CoreDNS and metrics-server, from Go modules into the cache, or returns the
 * cached ones. Only missing binaries are built, so adding one to the list builds just that one.
 */
export async function ensureBinaries(options: EnsureBinariesOptions = {}): Promise<BinaryPaths> {
  const version = options.version ?? KUBERNETES_VERSION;
  const log = options.log ?? (() => {});
  const paths = binaryPaths(version);
  if (await binariesCached(version)) return paths;

  const goVersion = checkGo();
  const started = Date.now();
  log(
    `building Kubernetes v${version} binaries with ${goVersion} (first run only; cached in ${dirname(paths.kubectl)})`,
  );
  for (const p of Object.values(paths)) await mkdir(dirname(p), { recursive: true });
  await buildKubernetes(version, paths, log);
  await buildStandalone('kwok', paths, log);
  await buildStandalone('coredns', paths, log);
  await buildStandalone('metrics-server', paths, log);
  log(`Kubernetes v${version} binaries ready in ${Math.round((Date.now() - started) / 1000)} s`);
  return paths;
}
