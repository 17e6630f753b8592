import { spawnSync } from 'node:child_process';
import { constants } from 'node:fs';
import { access, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { GoToolchainMissingError, LocalClusterError } from './errors.js';
import { binaryDir } from './paths.js';
import { runCommand } from './run.js';
import {
  BINARY_PACKAGES,
  type BinaryName,
  KUBERNETES_VERSION,
  STAGING_VERSION,
} from './versions.js';

export type BinaryPaths = Record<BinaryName, string>;

export interface EnsureBinariesOptions {
  version?: string;
  /** Progress lines for a human (build steps); silent when omitted. */
  log?: (line: string) => void;
}

async function isExecutable(path: string): Promise<boolean> {
  try {
    await access(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Paths the binaries of `version` have (or will have) in the cache. */
export function binaryPaths(version: string = KUBERNETES_VERSION): BinaryPaths {
  const dir = binaryDir(version);
  return {
    'kube-apiserver': join(dir, 'kube-apiserver'),
    kubectl: join(dir, 'kubectl'),
    etcd: join(dir, 'etcd'),
  };
}

/** True when every binary of `version` is already in the cache. */
export async function binariesCached(version: string = KUBERNETES_VERSION): Promise<boolean> {
  const paths = binaryPaths(version);
  const present = await Promise.all(Object.values(paths).map(isExecutable));
  return present.every(Boolean);
}

function goEnv(): NodeJS.ProcessEnv {
  // The wrapper module is throw-away: never let a workspace or vendor setting of the caller leak in.
  return { ...process.env, GOWORK: 'off', GOFLAGS: '-mod=mod', CGO_ENABLED: '0' };
}

function checkGo(): string {
  const result = spawnSync('go', ['version'], { encoding: 'utf8', env: goEnv() });
  if (result.error)
    throw new GoToolchainMissingError(`'go version' failed: ${result.error.message}`, {
      cause: result.error,
    });
  if (result.status !== 0)
    throw new GoToolchainMissingError(
      `'go version' exited ${result.status}: ${result.stderr.trim()}`,
    );
  return result.stdout.trim();
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
    {
      cwd: buildDir,
      env: goEnv(),
    },
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

/**
 * Builds kube-apiserver, kubectl and etcd of the pinned release from Go modules into the cache,
 * or returns the cached ones. Each binary is built to a temporary name and renamed into place,
 * so an interrupted build never leaves a half-written binary that a later run would trust.
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
  const buildDir = join(dirname(binaryDir(version)), 'build');
  await mkdir(buildDir, { recursive: true });
  await mkdir(binaryDir(version), { recursive: true });

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
  const tools = [
    '//go:build tools',
    '',
    '// Package tools pins the commands this throw-away module builds.',
    'package tools',
    '',
    'import (',
    ...Object.values(BINARY_PACKAGES).map((p) => `\t_ "${p}"`),
    ')',
    '',
  ].join('\n');
  await writeFile(join(buildDir, 'go.mod'), goMod);
  await writeFile(join(buildDir, 'tools.go'), tools);
  await rm(join(buildDir, 'go.sum'), { force: true });
  log('go mod tidy (downloads the modules the first time)');
  await runCommand('go', ['mod', 'tidy'], { cwd: buildDir, env: goEnv() });

  for (const [name, pkg] of Object.entries(BINARY_PACKAGES) as [BinaryName, string][]) {
    if (await isExecutable(paths[name])) continue;
    const tmp = `${paths[name]}.tmp-${process.pid}`;
    const t0 = Date.now();
    log(`go build ${name} (${pkg})`);
    try {
      await runCommand(
        'go',
        ['build', '-trimpath', '-ldflags', versionLdflags(version), '-o', tmp, pkg],
        {
          cwd: buildDir,
          env: goEnv(),
        },
      );
      await rename(tmp, paths[name]);
    } finally {
      await rm(tmp, { force: true });
    }
    log(`built ${name} in ${Math.round((Date.now() - t0) / 1000)} s`);
  }
  log(`Kubernetes v${version} binaries ready in ${Math.round((Date.now() - started) / 1000)} s`);
  return paths;
}
