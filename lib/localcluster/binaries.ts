import { mkdir, readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { LocalClusterError } from './errors.js';
import { checkGo, goBuild, goEnv, isExecutable, prepareWrapperModule } from './go-build.js';
import { binaryDir, corednsBinaryDir, kwokBinaryDir } from './paths.js';
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
  STAGING_VERSION,
  type StandaloneBinaryName,
} from './versions.js';

export type BinaryPaths = Record<BinaryName, string>;

export interface EnsureBinariesOptions {
  version?: string;
  /** Progress lines for a human (build steps); silent when omitted. */
  log?: (line: string) => void;
}

/** Paths the binaries of `version` (and the pinned kwok and CoreDNS) have, or will have, in the cache. */
export function binaryPaths(version: string = KUBERNETES_VERSION): BinaryPaths {
  const dir = binaryDir(version);
  const kube = Object.fromEntries(
    Object.keys(BINARY_PACKAGES).map((name) => [name, join(dir, name)]),
  ) as Record<KubernetesBinaryName, string>;
  return {
    ...kube,
    kwok: join(kwokBinaryDir(), 'kwok'),
    coredns: join(corednsBinaryDir(), 'coredns'),
  };
}

/** True when every binary of `version` is already in the cache. */
export async function binariesCached(version: string = KUBERNETES_VERSION): Promise<boolean> {
  const paths = binaryPaths(version);
  const present = await Promise.all(Object.values(paths).map(isExecutable));
  return present.every(Boolean);
}

/** What the release's own go.mod says the wrapper module needs. */
interface ReleaseModules {
  /** Its staging modules, each replaced by its published twin. */
  staging: string[];
  /**
   * The etcd the release is built against, when its module does not carry the etcd server
   * (1.33 and older require only etcd's client): built then in a module of its own.
   */
  standaloneEtcd?: { module: string; version: string; pkg: string };
}

/** etcd's root module of 3.5 holds its `main`; 3.6 and later moved it into the server module. */
const ETCD_ROOT_MODULE = 'go.etcd.io/etcd/v3';

/**
 * Reads the release's own go.mod to learn its staging modules: each `k8s.io/<x> => ./staging/...`
 * replace becomes `k8s.io/<x> => k8s.io/<x> v0.Y.Z`, the published twin of that staging copy.
 */
async function releaseModules(
  buildDir: string,
  version: string,
  log: (l: string) => void,
): Promise<ReleaseModules> {
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
  const staging = [...goMod.matchAll(/^\s*(k8s\.io\/[\w.-]+)\s*=>\s*\.\/staging\//gm)].map(
    (m) => m[1]!,
  );
  if (staging.length === 0)
    throw new LocalClusterError(
      `no staging replaces found in k8s.io/kubernetes v${version} go.mod`,
    );
  if (/^\s*go\.etcd\.io\/etcd\/server\/v3\s/m.test(goMod)) return { staging };
  const client = /^\s*go\.etcd\.io\/etcd\/client\/v3\s+v([\w.-]+)/m.exec(goMod)?.[1];
  if (!client)
    throw new LocalClusterError(
      `k8s.io/kubernetes v${version} go.mod requires neither etcd's server nor its client`,
    );
  return {
    staging,
    standaloneEtcd: { module: ETCD_ROOT_MODULE, version: client, pkg: ETCD_ROOT_MODULE },
  };
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
  const { staging, standaloneEtcd } = await releaseModules(buildDir, version, log);
  const fromRelease = missing.filter((name) => !(standaloneEtcd && name === 'etcd'));
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
    packages: Object.entries(BINARY_PACKAGES)
      .filter(([name]) => !(standaloneEtcd && name === 'etcd'))
      .map(([, pkg]) => pkg),
  });
  for (const name of fromRelease) {
    log(`go build ${name} (${BINARY_PACKAGES[name]})`);
    const ms = await goBuild(buildDir, BINARY_PACKAGES[name], paths[name], versionLdflags(version));
    log(`built ${name} in ${Math.round(ms / 1000)} s`);
  }
  if (standaloneEtcd && missing.includes('etcd'))
    await buildInOwnModule(
      'etcd',
      standaloneEtcd,
      paths.etcd,
      join(buildDir, '..', 'etcd-build'),
      log,
    );
}

/** A binary built in a wrapper module of its own: its module, version and main package. */
const STANDALONE: Record<StandaloneBinaryName, { module: string; version: string; pkg: string }> = {
  kwok: { module: KWOK_MODULE, version: KWOK_VERSION, pkg: KWOK_PACKAGE },
  coredns: { module: COREDNS_MODULE, version: COREDNS_VERSION, pkg: COREDNS_PACKAGE },
};

/** Builds `spec`'s main package to `out` in a wrapper module of its own in `buildDir`. */
async function buildInOwnModule(
  name: string,
  spec: { module: string; version: string; pkg: string },
  out: string,
  buildDir: string,
  log: (l: string) => void,
): Promise<void> {
  const goMod = [
    `module tenantplane.local/${name}-binaries`,
    '',
    'go 1.26.0',
    '',
    `require ${spec.module} v${spec.version}`,
    '',
  ].join('\n');
  log(`go mod tidy for ${name} v${spec.version}`);
  await prepareWrapperModule({ dir: buildDir, goMod, packages: [spec.pkg] });
  log(`go build ${name} (${spec.pkg})`);
  const ms = await goBuild(buildDir, spec.pkg, out, '-s -w');
  log(`built ${name} in ${Math.round(ms / 1000)} s`);
}

/**
 * Builds kwok or CoreDNS in a wrapper module of its own (beside the binary's cache directory),
 * since each needs newer shared modules than the Kubernetes release pins.
 */
async function buildStandalone(
  name: StandaloneBinaryName,
  paths: BinaryPaths,
  log: (l: string) => void,
): Promise<void> {
  if (await isExecutable(paths[name])) return;
  const buildDir = join(dirname(dirname(paths[name])), 'build');
  await buildInOwnModule(name, STANDALONE[name], paths[name], buildDir, log);
}

/**
 * Builds the pinned release's kube-apiserver, kubectl, etcd, kube-scheduler and
 * kube-controller-manager, and the pinned kwok and CoreDNS, from Go modules into the cache, or returns the
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
  log(`Kubernetes v${version} binaries ready in ${Math.round((Date.now() - started) / 1000)} s`);
  return paths;
}
