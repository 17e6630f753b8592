/**
 * The Go toolchain steps shared by every wrapper module: a throw-away module that pins what it
 * builds with a `tools.go`, `go mod tidy`, and `go build` of each command into the cache.
 */
import { spawnSync } from 'node:child_process';
import { constants } from 'node:fs';
import { access, mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { GoToolchainMissingError } from './errors.js';
import { runCommand } from './run.js';

/** True when `path` exists and may be executed. */
export async function isExecutable(path: string): Promise<boolean> {
  try {
    await access(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The environment of every go command the local cluster runs. */
export function goEnv(): NodeJS.ProcessEnv {
  // The wrapper module is throw-away: never let a workspace or vendor setting of the caller leak in.
  return { ...process.env, GOWORK: 'off', GOFLAGS: '-mod=mod', CGO_ENABLED: '0' };
}

/** Returns `go version`, or throws {@link GoToolchainMissingError} when there is no usable Go. */
export function checkGo(): string {
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

/** One throw-away wrapper module. */
export interface WrapperModule {
  dir: string;
  /** The full text of its go.mod. */
  goMod: string;
  /** The packages it builds; `tools.go` imports them so `go mod tidy` keeps their modules. */
  packages: readonly string[];
}

/** Writes the module's go.mod and tools.go and resolves its dependencies with `go mod tidy`. */
export async function prepareWrapperModule(module: WrapperModule): Promise<void> {
  await mkdir(module.dir, { recursive: true });
  const tools = [
    '//go:build tools',
    '',
    '// Package tools pins the commands this throw-away module builds.',
    'package tools',
    '',
    'import (',
    ...module.packages.map((p) => `\t_ "${p}"`),
    ')',
    '',
  ].join('\n');
  await writeFile(`${module.dir}/go.mod`, module.goMod);
  await writeFile(`${module.dir}/tools.go`, tools);
  // A go.sum of an earlier pin would only carry stale lines: tidy writes a fresh one.
  await rm(`${module.dir}/go.sum`, { force: true });
  await runCommand('go', ['mod', 'tidy'], { cwd: module.dir, env: goEnv() });
}

/**
 * Builds `pkg` of the module in `dir` to `out`, through a temporary name renamed into place so
 * an interrupted build never leaves a half-written binary that a later run would trust.
 * Returns the build's duration in milliseconds.
 */
export async function goBuild(
  dir: string,
  pkg: string,
  out: string,
  ldflags: string,
): Promise<number> {
  const tmp = `${out}.tmp-${process.pid}`;
  const t0 = Date.now();
  try {
    await runCommand('go', ['build', '-trimpath', '-ldflags', ldflags, '-o', tmp, pkg], {
      cwd: dir,
      env: goEnv(),
    });
    await rename(tmp, out);
  } finally {
    await rm(tmp, { force: true });
  }
  return Date.now() - t0;
}
