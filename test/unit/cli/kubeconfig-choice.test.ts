/**
 * Which kubeconfigs the cluster flags pick: one kubeconfig holding both clusters (`--kubeconfig`,
 * `KUBECONFIG`, `~/.kube/config`, the way kubectl finds it), the two-file flags, and `-o yaml`.
 */
import { describe, expect, it } from '@jest/globals';
import { Command } from 'commander';
import { parse, parseAllDocuments } from 'yaml';
import { UsageError } from '../../../lib/cli/errors.js';
import { answer } from '../../../lib/cli/format.js';
import {
  checkDistinctClusters,
  chooseKubeconfigs,
  type KubeconfigChoice,
} from '../../../lib/cli/kubeconfig-choice.js';
import { addClusterOptions, addOutputOption } from '../../../lib/cli/options.js';
import { run } from '../../../lib/cli/program.js';
import { recordText } from '../../../lib/cli/records.js';
import { captureIo } from '../../fixtures/capture-io.js';

const both = { tenantContext: 't', hostContext: 'h' };

function kubeconfigFiles(choice: KubeconfigChoice) {
  if (choice.source !== 'kubeconfig')
    throw new Error(`expected one kubeconfig, got ${choice.source}`);
  return choice;
}

describe('chooseKubeconfigs: one kubeconfig for both clusters', () => {
  it('--kubeconfig serves both clusters from the same files', () => {
    const choice = kubeconfigFiles(chooseKubeconfigs({ kubeconfig: 'all.yaml', ...both }, {}));
    expect(choice.tenant).toEqual({ paths: ['all.yaml'], via: '--kubeconfig', skipMissing: false });
    expect(choice.host).toBe(choice.tenant);
  });

  it('--kubeconfig wins over KUBECONFIG, as with kubectl', () => {
    const choice = chooseKubeconfigs({ kubeconfig: 'all.yaml', ...both }, { KUBECONFIG: 'x:y' });
    expect(kubeconfigFiles(choice).host.paths).toEqual(['all.yaml']);
  });

  it('per-cluster contexts alone read KUBECONFIG: its files in order, duplicates and blanks dropped', () => {
    const choice = chooseKubeconfigs(both, { KUBECONFIG: '/k/a.yaml::/k/b.yaml:/k/a.yaml' });
    expect(kubeconfigFiles(choice).tenant).toEqual({
      paths: ['/k/a.yaml', '/k/b.yaml'],
      via: 'KUBECONFIG',
      skipMissing: true,
    });
  });

  it('per-cluster contexts without KUBECONFIG read ~/.kube/config', () => {
    for (const env of [{ HOME: '/home/op' }, { HOME: '/home/op', KUBECONFIG: '' }]) {
      const choice = chooseKubeconfigs({ hostContext: 'h' }, env);
      expect(kubeconfigFiles(choice).host).toEqual({
        paths: ['/home/op/.kube/config'],
        via: '~/.kube/config',
        skipMissing: false,
      });
    }
  });

  it('an exported KUBECONFIG alone never replaces the local clusters', () => {
    expect(chooseKubeconfigs({}, { KUBECONFIG: '/k/prod.yaml' })).toEqual({ source: 'local' });
  });

  it('--context alone reads KUBECONFIG (else ~/.kube/config) for both clusters, like kubectl', () => {
    const fromEnv = kubeconfigFiles(
      chooseKubeconfigs({ context: 'x' }, { KUBECONFIG: '/k/p.yaml' }),
    );
    expect(fromEnv.host).toEqual({ paths: ['/k/p.yaml'], via: 'KUBECONFIG', skipMissing: true });
    expect(fromEnv.tenant).toBe(fromEnv.host);
    const fromHome = kubeconfigFiles(chooseKubeconfigs({ context: 'x' }, { HOME: '/home/op' }));
    expect(fromHome.host.paths).toEqual(['/home/op/.kube/config']);
  });

  it('a per-cluster file flag overrides the shared kubeconfig for its cluster', () => {
    const choice = kubeconfigFiles(
      chooseKubeconfigs({ kubeconfig: 'all.yaml', hostKubeconfig: 'host.yaml' }, {}),
    );
    expect(choice.tenant.paths).toEqual(['all.yaml']);
    expect(choice.host).toEqual({
      paths: ['host.yaml'],
      via: '--host-kubeconfig',
      skipMissing: false,
    });
    const viaEnv = kubeconfigFiles(
      chooseKubeconfigs({ tenantKubeconfig: 't.yaml', hostContext: 'h' }, { KUBECONFIG: 'k.yaml' }),
    );
    expect(viaEnv.tenant.paths).toEqual(['t.yaml']);
    expect(viaEnv.host.paths).toEqual(['k.yaml']);
  });

  it('keeps the two-file flags as they were', () => {
    expect(
      chooseKubeconfigs({ tenantKubeconfig: 't.yaml', hostKubeconfig: 'h.yaml', ...both }, {}),
    ).toEqual({ source: 'files', tenantPath: 't.yaml', hostPath: 'h.yaml' });
  });

  it.each([
    [{ kubeconfig: 'a', tenantKubeconfig: 't', hostKubeconfig: 'h' }, /nothing to do/],
    [{ kubeconfig: 'a', secrets: 's1,s2' }, /cannot be combined with --kubeconfig/],
    [{ hostKubeconfig: 'h' }, /go together/],
  ])('refuses %j', (flags, message) => {
    expect(() => chooseKubeconfigs(flags, {})).toThrow(UsageError);
    expect(() => chooseKubeconfigs(flags, {})).toThrow(message);
  });
});

describe('checkDistinctClusters', () => {
  const check = (flags: Parameters<typeof chooseKubeconfigs>[0]) =>
    checkDistinctClusters(chooseKubeconfigs(flags, {}), flags);

  it('accepts two contexts of one kubeconfig', () => {
    expect(() => check({ kubeconfig: 'all.yaml', ...both })).not.toThrow();
    expect(() => check({ kubeconfig: 'all.yaml', context: 'c', hostContext: 'h' })).not.toThrow();
  });

  it('refuses one kubeconfig without contexts, or the same context twice', () => {
    expect(() => check({ kubeconfig: 'all.yaml' })).toThrow(/--tenant-context .* --host-context/);
    expect(() => check({ kubeconfig: 'all.yaml', context: 'c' })).toThrow(/both use context "c"/);
    expect(() => check({ kubeconfig: 'a', tenantContext: 'x', hostContext: 'x' })).toThrow(
      UsageError,
    );
  });

  it('has nothing to check when each cluster has its own file', () => {
    expect(() => check({ tenantKubeconfig: 't', hostKubeconfig: 'h' })).not.toThrow();
    expect(() => check({ kubeconfig: 'all.yaml', hostKubeconfig: 'h.yaml' })).not.toThrow();
  });
});

describe('the command line', () => {
  it('parses --kubeconfig and the contexts', () => {
    const flags = addClusterOptions(new Command())
      .parse(['--kubeconfig', 'k.yaml', '--tenant-context', 't', '--host-context', 'h'], {
        from: 'user',
      })
      .opts();
    expect(flags).toEqual({ kubeconfig: 'k.yaml', tenantContext: 't', hostContext: 'h' });
  });

  it.each(['table', 'json', 'yaml'])('-o %s is a format', (format) => {
    const flags = addOutputOption(new Command()).parse(['-o', format], { from: 'user' }).opts();
    expect(flags.output).toBe(format);
  });

  it.each([
    [['sync', 'dev', '--kubeconfig', 'k.yaml'], /holds both clusters/],
    [['plan', 'dev', '--kubeconfig', 'k', '--tenant-context', 'a', '--host-context', 'a'], /"a"/],
    [['status', '--secrets', 'a,b', '--kubeconfig', 'k'], /cannot be combined/],
    [['status', 'Not_A_Name'], /invalid tenant cluster name/],
    // One context for both clusters would make the host its own tenant.
    [['sync', 'dev', '--context', 'c'], /both use context "c"/],
  ])('%j is bad usage (exit 2), before any file is read', async (argv, message) => {
    const io = captureIo();
    expect(await run(argv, io)).toBe(2);
    expect(io.stderr()).toMatch(message);
  });

  it('status --help documents the listing and -o yaml', async () => {
    const io = captureIo();
    expect(await run(['status', '--help'], io)).toBe(0);
    expect(io.stdout()).toContain('Usage: tenantplane status [options] [tenant]');
    expect(io.stdout()).toContain('"table", "json", "yaml"');
    expect(io.stdout()).toContain('--kubeconfig <path>');
  });
});

describe('-o yaml', () => {
  const record = { type: 'pass', tenant: 'dev', note: undefined, on: 'yes', counts: { a: 1 } };

  it('prints the same data as -o json, as YAML that parses back', () => {
    const json = JSON.parse(answer('json', record, () => '')) as unknown;
    const yaml = answer('yaml', record, () => '');
    expect(yaml.startsWith('---\n')).toBe(true);
    expect(parse(yaml)).toEqual(json);
    expect(yaml).not.toContain('note');
  });

  it('streams records as one YAML document each', () => {
    const stream = recordText('yaml', { n: 1 }) + recordText('yaml', { n: 2, s: '0x1F' });
    const docs = parseAllDocuments(stream);
    expect(Array.isArray(docs) && docs.map((d) => d.toJS())).toEqual([
      { n: 1 },
      { n: 2, s: '0x1F' },
    ]);
  });
});
