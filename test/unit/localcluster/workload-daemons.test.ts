import { readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import { parseAllDocuments } from 'yaml';
import type { Pki } from '../../../lib/localcluster/pki.js';
import {
  controllerManagerArgs,
  KWOK_DEFAULT_POD_CIDR,
  KWOK_NODE_ANNOTATION,
  KWOK_STAGES,
  kwokArgs,
  kwokEnv,
  schedulerArgs,
} from '../../../lib/localcluster/workload-daemons.js';
import { hostWorkloadObjects, kwokNodeNames } from '../../../lib/localcluster/workload-objects.js';

const pki = {
  caCert: '/s/pki/ca.crt',
  serviceAccounts: {
    tenant: { key: '/s/pki/sa-tenant.key', pub: '/s/pki/sa-tenant.pub' },
    host: { key: '/s/pki/sa-host.key', pub: '/s/pki/sa-host.pub' },
  },
} as Pki;
const spec = (cluster: 'tenant' | 'host') => ({ pki, kubeconfig: '/s/k', cluster, port: 4242 });
const flag = (args: string[], name: string) =>
  args.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);

describe('the workload components command lines', () => {
  it.each([
    ['kube-scheduler', schedulerArgs(spec('host'))],
    ['host kube-controller-manager', controllerManagerArgs(spec('host'))],
    ['tenant kube-controller-manager', controllerManagerArgs(spec('tenant'))],
  ])('%s serves on loopback only, without leader election', (_, args) => {
    expect(flag(args, 'bind-address')).toBe('127.0.0.1');
    expect(flag(args, 'secure-port')).toBe('4242');
    expect(flag(args, 'leader-elect')).toBe('false');
    expect(flag(args, 'kubeconfig')).toBe('/s/k');
  });

  it("signs tokens with its own cluster's key, never the other's, and publishes the local CA", () => {
    const args = controllerManagerArgs(spec('tenant'));
    expect(flag(args, 'service-account-private-key-file')).toBe(pki.serviceAccounts.tenant.key);
    expect(flag(controllerManagerArgs(spec('host')), 'service-account-private-key-file')).toBe(
      pki.serviceAccounts.host.key,
    );
    expect(flag(args, 'root-ca-file')).toBe(pki.caCert);
    expect(flag(args, 'use-service-account-credentials')).toBe('true');
  });

  it('runs the default controllers on the host, with the host-path provisioner', () => {
    const args = controllerManagerArgs(spec('host'));
    // All but the root CA publisher, until the engine tests tolerate kube-root-ca.crt on the host.
    expect(flag(args, 'controllers')).toBe('*,-root-ca-certificate-publisher-controller');
    expect(flag(args, 'enable-hostpath-provisioner')).toBe('true');
  });

  it('leaves nodes, volumes and Pod garbage collection to the host in the tenant', () => {
    const args = controllerManagerArgs(spec('tenant'));
    const controllers = flag(args, 'controllers')?.split(',') ?? [];
    expect(controllers[0]).toBe('*');
    for (const off of [
      'node-lifecycle-controller',
      'persistentvolume-binder-controller',
      'pod-garbage-collector-controller',
    ]) {
      expect(controllers).toContain(`-${off}`);
    }
    expect(controllers.some((c) => /deployment|replicaset|namespace|root-ca/.test(c))).toBe(false);
    expect(flag(args, 'enable-hostpath-provisioner')).toBeUndefined();
  });

  it('gives kwok the stages it cannot start without, a loopback node IP and a private HOME', () => {
    const args = kwokArgs('/s/kwok.kubeconfig');
    expect(flag(args, 'config')).toBe(KWOK_STAGES);
    expect(flag(args, 'node-ip')).toBe('127.0.0.1');
    expect(flag(args, 'cidr')).toBe(KWOK_DEFAULT_POD_CIDR);
    expect(flag(args, 'manage-nodes-with-annotation-selector')).toBe(
      `${KWOK_NODE_ANNOTATION}=fake`,
    );
    expect(kwokEnv('/s').HOME).toBe('/s/kwok-home');
  });

  it('ships the node and pod stages kwok plays', () => {
    const docs = parseAllDocuments(readFileSync(KWOK_STAGES, 'utf8')).map(
      (d) => d.toJS() as { kind: string; metadata: { name: string } },
    );
    expect(docs.every((d) => d.kind === 'Stage')).toBe(true);
    expect(docs.map((d) => d.metadata.name).sort()).toEqual([
      'node-heartbeat-with-lease',
      'node-initialize',
      'pod-complete',
      'pod-delete',
      'pod-ready',
    ]);
  });
});

describe('the host workload objects', () => {
  const items = hostWorkloadObjects().map((o) => o.object);
  const nodes = items.filter((i) => i.kind === 'Node') as {
    metadata: { name: string; annotations: Record<string, string> };
    spec: { podCIDR: string };
  }[];

  it('are simulated nodes kwok plays, each with a Pod CIDR of its own', () => {
    expect(nodes.map((n) => n.metadata.name)).toEqual(kwokNodeNames());
    expect(nodes.every((n) => n.metadata.annotations[KWOK_NODE_ANNOTATION] === 'fake')).toBe(true);
    const cidrs = nodes.map((n) => n.spec.podCIDR);
    expect(new Set([...cidrs, KWOK_DEFAULT_POD_CIDR]).size).toBe(cidrs.length + 1);
  });

  it('go to the collections of their kinds', () => {
    expect(hostWorkloadObjects().map((o) => `${o.path} ${o.object.kind}`)).toEqual([
      ...kwokNodeNames().map(() => '/api/v1/nodes Node'),
      '/apis/storage.k8s.io/v1/storageclasses StorageClass',
    ]);
  });

  it('include a default StorageClass served by the host-path provisioner', () => {
    const sc = items.find((i) => i.kind === 'StorageClass') as {
      provisioner: string;
      metadata: { annotations: Record<string, string> };
    };
    expect(sc.provisioner).toBe('kubernetes.io/host-path');
    expect(sc.metadata.annotations['storageclass.kubernetes.io/is-default-class']).toBe('true');
  });
});
