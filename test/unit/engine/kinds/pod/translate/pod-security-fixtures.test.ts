/**
 * The engine's Pod Security checks against upstream's own verdicts: `k8s.io/pod-security-admission`
 * ships, per level and policy version, Pods that must pass and Pods that must fail
 * (`test/testdata/<level>/<version>/{pass,fail}/*.yaml`). Every fixture of the latest version gets
 * the same verdict from the engine's check, and from the whole translation at that level (the
 * engine's own additions keep a passing Pod passing); a fail fixture names the check it fails, and
 * the engine's check that fails it is that one. Fail fixtures of older versions whose check had
 * its latest rules already must fail too. The module is the one of the pinned
 * Kubernetes release (`lib/localcluster/versions.ts`), found in the Go module cache or downloaded
 * through the module proxy; without it this test fails, it never skips.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { parse } from 'yaml';
import {
  type PodSecurityCheck,
  podSecurityChecks,
  podSecurityViolations,
} from '../../../../../../lib/engine/kinds/pod/translate/pod-security.js';
import { translate } from '../../../../../../lib/engine/kinds/registry.js';
import {
  DEFAULT_ISOLATION,
  PodSecurityLevel,
} from '../../../../../../lib/engine/policy/isolation.js';
import { STAGING_VERSION } from '../../../../../../lib/localcluster/versions.js';
import type { KubeObject } from '../../../../../../lib/ports/index.js';

const MODULE = 'k8s.io/pod-security-admission';

/** The module's directory: in the module cache, or downloaded; an Error when neither works. */
function moduleDir(): string | Error {
  const env = { ...process.env, GOWORK: 'off', GOFLAGS: '-mod=mod' };
  const cache = spawnSync('go', ['env', 'GOMODCACHE'], { encoding: 'utf8', env });
  const cached =
    cache.status === 0 ? join(cache.stdout.trim(), `${MODULE}@${STAGING_VERSION}`) : '';
  if (cached !== '' && existsSync(join(cached, 'test', 'testdata'))) return cached;
  const download = spawnSync('go', ['mod', 'download', '-json', `${MODULE}@${STAGING_VERSION}`], {
    encoding: 'utf8',
    env,
    timeout: 100_000,
  });
  if (download.status !== 0) {
    return new Error(
      `${MODULE}@${STAGING_VERSION} is neither in the Go module cache (${cached || cache.stderr}) nor downloadable: ${download.error?.message ?? `${download.stderr}${download.stdout}`}`,
    );
  }
  const dir = (JSON.parse(download.stdout) as { Dir?: string }).Dir;
  return dir ?? new Error(`go mod download named no directory for ${MODULE}@${STAGING_VERSION}`);
}

/** `v1.35` -> [1, 35]. */
function versionOf(dir: string): [number, number] {
  const [major, minor] = dir.replace(/^v/, '').split('.').map(Number);
  return [major ?? 0, minor ?? 0];
}

/** A fixture's Pod: the object itself, or the Pod template of a workload kind. */
function podOf(object: Record<string, unknown>): KubeObject {
  const spec = object.spec as Record<string, unknown> | undefined;
  const template = (spec?.template ?? (spec?.jobTemplate as Record<string, unknown>)?.spec) as
    | Record<string, unknown>
    | undefined;
  const pod = object.kind === 'Pod' || !template ? object : template;
  const metadata = (pod.metadata ?? {}) as KubeObject['metadata'];
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { ...metadata, name: 'fixture', namespace: 'shop', uid: 'uid-fixture' },
    spec: pod.spec,
  };
}

const found = moduleDir();
const LEVELS = [PodSecurityLevel.Baseline, PodSecurityLevel.Restricted] as const;
type Level = (typeof LEVELS)[number];

/** A fixture: its file, the check it is named for (`capabilities_baseline0.yaml`), its Pod. */
interface Fixture {
  file: string;
  named: string;
  pod: KubeObject;
}

/** The version directories of `level`, oldest first. */
function versions(level: Level): string[] {
  if (found instanceof Error) throw found;
  const levelDir = join(found, 'test', 'testdata', level);
  return readdirSync(levelDir)
    .filter((name) => /^v\d+\.\d+$/.test(name))
    .sort((a, b) => {
      const [am, an] = versionOf(a);
      const [bm, bn] = versionOf(b);
      return am - bm || an - bn;
    });
}

/** The fixtures of `level` at `version`, by verdict. */
function fixtures(level: Level, version: string, verdict: 'pass' | 'fail'): Fixture[] {
  if (found instanceof Error) throw found;
  const dir = join(found, 'test', 'testdata', level, version, verdict);
  return readdirSync(dir)
    .filter((file) => file.endsWith('.yaml'))
    .sort()
    .map((file) => ({
      file,
      named: file.replace(/\d*\.yaml$/, ''),
      pod: podOf(parse(readFileSync(join(dir, file), 'utf8'))),
    }));
}

/**
 * The check a fixture is named for at `level` (file names are lowercased check ids): itself, or
 * the restricted check that overrides it; `undefined` for `base.yaml`.
 */
function checkNamed(named: string, level: Level): PodSecurityCheck | undefined {
  const checks = podSecurityChecks(level);
  const every = [
    ...podSecurityChecks(PodSecurityLevel.Baseline),
    ...podSecurityChecks(PodSecurityLevel.Restricted),
  ];
  const own = every.find((check) => check.id.toLowerCase() === named);
  const overriding = checks.find((check) => own && check.overrides?.includes(own.id));
  return overriding ?? checks.find((check) => check.id === own?.id);
}

/** The translation of a fixture Pod under a policy at `level`. */
function translated(pod: KubeObject, level: Level) {
  return translate(pod, {
    tenant: 'dev',
    hostNamespace: 'tenant-dev',
    workloads: { isolation: { ...DEFAULT_ISOLATION, podSecurity: level } },
  });
}

describe('Pod Security checks: the upstream fixtures', () => {
  it(`finds ${MODULE}@${STAGING_VERSION} (module cache or proxy)`, () => {
    if (found instanceof Error) throw found;
    expect(existsSync(join(found, 'test', 'testdata'))).toBe(true);
  });

  describe.each(LEVELS)('%s, latest version', (level) => {
    const latest = () => versions(level).at(-1) ?? 'none';

    it('the latest version is the one every check mirrors', () => {
      const newest = Math.max(...podSecurityChecks(level).map((check) => check.since));
      expect(versionOf(latest())[1]).toBeGreaterThanOrEqual(newest);
    });

    it('every pass fixture passes, checked alone and as the translated host Pod', () => {
      const pass = fixtures(level, latest(), 'pass');
      expect(pass.length).toBeGreaterThan(10);
      const refused = pass
        .map(({ file, pod }) => ({ file, violations: podSecurityViolations(pod, level) }))
        .filter(({ violations }) => violations.length > 0);
      expect(refused).toEqual([]);
      const untranslated = pass
        .map(({ file, pod }) => ({ file, result: translated(pod, level) }))
        .filter(({ result }) => 'refused' in result);
      expect(untranslated).toEqual([]);
    });

    it('every fail fixture fails its own check, alone and as the translated host Pod', () => {
      const fail = fixtures(level, latest(), 'fail');
      expect(fail.length).toBeGreaterThan(30);
      const wrong = fail
        .map(({ file, named, pod }) => ({
          file,
          expected: checkNamed(named, level)?.id,
          got: podSecurityViolations(pod, level).map((violation) => violation.check),
        }))
        .filter(({ expected, got }) => expected === undefined || !got.includes(expected));
      expect(wrong).toEqual([]);
      const written = fail
        .filter(({ pod }) => 'host' in translated(pod, level))
        .map(({ file }) => file);
      expect(written).toEqual([]);
    });
  });

  describe.each(LEVELS)('%s, every older version', (level) => {
    // A fail fixture of version 1.N fails its check's 1.N rules; when those are already the
    // latest rules (the check's `since` <= N), it must fail the engine's check too. Pass fixtures
    // of older versions need every check of the level at its latest rules, which only the latest
    // version has.
    it('every fail fixture whose check has its latest rules fails that check', () => {
      let checked = 0;
      const wrong: { version: string; file: string; got: string[] }[] = [];
      for (const version of versions(level).slice(0, -1)) {
        const minor = versionOf(version)[1];
        for (const { file, named, pod } of fixtures(level, version, 'fail')) {
          const check = checkNamed(named, level);
          if (!check || check.since > minor) continue;
          checked += 1;
          const got = podSecurityViolations(pod, level).map((violation) => violation.check);
          if (!got.includes(check.id)) wrong.push({ version, file, got });
        }
      }
      expect(wrong).toEqual([]);
      expect(checked).toBeGreaterThan(500);
    });
  });
});
