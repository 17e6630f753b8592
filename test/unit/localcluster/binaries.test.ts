import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import {
  binariesCached,
  binaryPaths,
  ensureBinaries,
  GoToolchainMissingError,
  KWOK_VERSION,
} from '../../../lib/localcluster/index.js';

describe('the binary cache', () => {
  let cache: string;
  const saved = { xdg: process.env.XDG_CACHE_HOME, path: process.env.PATH };

  beforeEach(async () => {
    cache = await mkdtemp(join(tmpdir(), 'tp-cache-'));
    process.env.XDG_CACHE_HOME = cache;
  });
  afterEach(async () => {
    process.env.XDG_CACHE_HOME = saved.xdg;
    process.env.PATH = saved.path;
    if (saved.xdg === undefined) delete process.env.XDG_CACHE_HOME;
    await rm(cache, { recursive: true, force: true });
  });

  it('lives outside the repository, keyed by the Kubernetes version', () => {
    const paths = binaryPaths('1.36.3');
    expect(paths.kubectl).toBe(join(cache, 'tenantplane', 'kubernetes-v1.36.3', 'bin', 'kubectl'));
    expect(binaryPaths('1.37.0').kubectl).not.toBe(paths.kubectl);
  });

  it('keeps kwok apart, keyed by its own version, next to the workload components', () => {
    const paths = binaryPaths('1.36.3');
    expect(paths.kwok).toBe(join(cache, 'tenantplane', `kwok-v${KWOK_VERSION}`, 'bin', 'kwok'));
    expect(binaryPaths('1.37.0').kwok).toBe(paths.kwok);
    expect(dirname(paths['kube-scheduler'])).toBe(dirname(paths.kubectl));
    expect(dirname(paths['kube-controller-manager'])).toBe(dirname(paths.kubectl));
  });

  it('rebuilds when only a newly added binary is missing', async () => {
    const paths = binaryPaths();
    for (const p of Object.values(paths)) {
      await mkdir(dirname(p), { recursive: true });
      await writeFile(p, '#!/bin/sh\n');
      await chmod(p, 0o755);
    }
    await rm(paths['kube-controller-manager']);
    expect(await binariesCached()).toBe(false);
  });

  it('does not trust half-written binaries left by an interrupted build', async () => {
    const paths = binaryPaths();
    for (const p of Object.values(paths)) {
      await mkdir(dirname(p), { recursive: true });
      await writeFile(`${p}.tmp-4242`, 'partial');
    }
    expect(await binariesCached()).toBe(false);
  });

  it('reuses complete binaries without invoking Go', async () => {
    const paths = binaryPaths();
    for (const p of Object.values(paths)) {
      await mkdir(dirname(p), { recursive: true });
      await writeFile(p, '#!/bin/sh\n');
      await chmod(p, 0o755);
    }
    process.env.PATH = '/nonexistent';
    expect(await binariesCached()).toBe(true);
    await expect(ensureBinaries()).resolves.toEqual(paths);
  });

  it('says plainly that a Go toolchain is needed when there is none', async () => {
    process.env.PATH = '/nonexistent';
    const attempt = ensureBinaries();
    await expect(attempt).rejects.toBeInstanceOf(GoToolchainMissingError);
    await expect(attempt).rejects.toThrow(/needs a Go toolchain/);
  });
});
