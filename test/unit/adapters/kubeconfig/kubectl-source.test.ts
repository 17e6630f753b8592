/**
 * Kubeconfig files merged the way kubectl merges `KUBECONFIG`, and two clusters picked from one
 * kubeconfig by their contexts.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { parse, stringify } from 'yaml';
import {
  type KubeconfigFiles,
  KubectlKubeconfigSource,
  readKubeconfigFiles,
} from '../../../../lib/adapters/kubeconfig/kubectl-source.js';
import { loadKubeconfig } from '../../../../lib/adapters/kubeconfig/load.js';

let dir: string;

/** A kubeconfig with one cluster, user and context per name, `token-<name>` as credential. */
function kubeconfig(names: string[], current?: string, extra: Record<string, unknown> = {}) {
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: names.map((n) => ({ name: n, cluster: { server: `https://${n}.example:6443` } })),
    users: names.map((n) => ({ name: n, user: { token: `token-${n}` } })),
    contexts: names.map((n) => ({ name: n, context: { cluster: n, user: n } })),
    ...(current ? { 'current-context': current } : {}),
    ...extra,
  });
}

async function file(name: string, text: string): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, text);
  return path;
}

const list = (paths: string[]): KubeconfigFiles => ({
  paths,
  via: 'KUBECONFIG',
  skipMissing: true,
});

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tenantplane-kubeconfig-'));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('readKubeconfigFiles (KUBECONFIG merge)', () => {
  it('keeps the first definition of each name and the first current-context', async () => {
    const a = await file('a.yaml', kubeconfig(['tenant', 'shared'], 'tenant'));
    const b = await file(
      'b.yaml',
      kubeconfig(['host', 'shared'], 'host').replace('shared.example', 'other.example'),
    );
    const { doc, origin } = await readKubeconfigFiles('host', list([a, b]));
    expect(origin).toBe(`KUBECONFIG (${a}:${b})`);
    expect(doc['current-context']).toBe('tenant');
    const clusters = doc.clusters as Array<{ name: string; cluster: { server: string } }>;
    expect(clusters.map((c) => c.name)).toEqual(['tenant', 'shared', 'host']);
    expect(clusters.find((c) => c.name === 'shared')?.cluster.server).toBe(
      'https://shared.example:6443',
    );
  });

  it('skips KUBECONFIG files that do not exist, and fails when none does', async () => {
    const a = await file('only.yaml', kubeconfig(['one']));
    const { doc } = await readKubeconfigFiles('tenant', list([join(dir, 'nope.yaml'), a]));
    expect((doc.contexts as unknown[]).length).toBe(1);
    await expect(
      readKubeconfigFiles('tenant', list([join(dir, 'x.yaml'), join(dir, 'y.yaml')])),
    ).rejects.toThrow(/tenant kubeconfig KUBECONFIG \(.*\): none of its files exist/);
  });

  it('fails on a missing --kubeconfig file, naming it', async () => {
    const missing = join(dir, 'missing.yaml');
    await expect(
      readKubeconfigFiles('host', { paths: [missing], via: '--kubeconfig', skipMissing: false }),
    ).rejects.toThrow(`host kubeconfig ${missing}: file not found`);
  });

  it('resolves relative file paths against the file that holds them, as kubectl does', async () => {
    await mkdir(join(dir, 'certs'), { recursive: true });
    const path = await file(
      'paths.yaml',
      stringify({
        clusters: [
          { name: 'c', cluster: { server: 'https://c', 'certificate-authority': 'ca.crt' } },
        ],
        users: [
          {
            name: 'u',
            user: {
              'client-certificate': 'certs/u.crt',
              'client-key': '/abs/u.key',
              tokenFile: './token',
              exec: { command: './bin/login', args: [] },
            },
          },
          { name: 'aws', user: { exec: { command: 'aws' } } },
        ],
        contexts: [{ name: 'c', context: { cluster: 'c', user: 'u' } }],
      }),
    );
    const { doc } = await readKubeconfigFiles('tenant', list([path]));
    const [c] = doc.clusters as Array<{ cluster: Record<string, string> }>;
    const [u, aws] = doc.users as Array<{ user: Record<string, unknown> }>;
    expect(c?.cluster['certificate-authority']).toBe(join(dir, 'ca.crt'));
    expect(u?.user['client-certificate']).toBe(join(dir, 'certs/u.crt'));
    expect(u?.user['client-key']).toBe('/abs/u.key');
    expect(u?.user.tokenFile).toBe(join(dir, 'token'));
    expect(u?.user.exec).toEqual({ command: join(dir, 'bin/login'), args: [] });
    expect(aws?.user.exec).toEqual({ command: 'aws' });
  });

  it('names a malformed file without quoting it', async () => {
    const bad = await file('bad.yaml', 'users: [{name: x, user: {token: s3cr3t-token}}\n');
    const error = await readKubeconfigFiles('tenant', list([bad])).catch((e: Error) => e);
    expect(String(error)).toContain(bad);
    expect(String(error)).toMatch(/is not valid YAML/);
    expect(String(error)).not.toContain('s3cr3t');
  });
});

describe('KubectlKubeconfigSource: both clusters from one kubeconfig', () => {
  it('gives each cluster the context the flags name', async () => {
    const all = await file('all.yaml', kubeconfig(['tenant-dev', 'host'], 'host'));
    const files: KubeconfigFiles = { paths: [all], via: '--kubeconfig', skipMissing: false };
    const source = new KubectlKubeconfigSource(
      { tenant: files, host: files },
      { tenant: 'tenant-dev', host: 'host' },
    );
    const tenant = await source.load('tenant');
    expect(tenant.origin).toBe(all);
    expect(loadKubeconfig(tenant, 'tenant-dev').server).toBe('https://tenant-dev.example:6443');
    expect(loadKubeconfig(await source.load('host'), 'host').server).toBe(
      'https://host.example:6443',
    );
  });

  it('merges KUBECONFIG files into one kubeconfig the client loads', async () => {
    const t = await file('t.yaml', kubeconfig(['t']));
    const h = await file('h.yaml', kubeconfig(['h']));
    const files = list([t, h]);
    const source = new KubectlKubeconfigSource(
      { tenant: files, host: files },
      { tenant: 't', host: 'h' },
    );
    const text = await source.load('tenant');
    expect((parse(text.text) as { contexts: unknown[] }).contexts).toHaveLength(2);
    expect(loadKubeconfig(text, 't').server).toBe('https://t.example:6443');
  });

  it('refuses a tenant that would use the host context (current-context for both)', async () => {
    const all = await file('same.yaml', kubeconfig(['a', 'b'], 'a'));
    const files: KubeconfigFiles = { paths: [all], via: '--kubeconfig', skipMissing: false };
    const source = new KubectlKubeconfigSource(
      { tenant: files, host: files },
      { tenant: 'a', host: undefined },
    );
    await expect(source.load('tenant')).rejects.toThrow(/same context "a"/);
    // The host alone (status) is fine.
    expect((await source.load('host')).origin).toBe(all);
  });
});
