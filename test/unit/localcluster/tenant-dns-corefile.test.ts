import { describe, expect, it } from '@jest/globals';
import {
  localCorefile,
  readDeployedCorefile,
} from '../../../lib/localcluster/tenant-dns-corefile.js';

const spec = {
  port: 5301,
  healthPort: 5302,
  readyPort: 5303,
  kubeconfig: '/state/dns/tenant.kubeconfig',
  context: 'tenantplane-local-tenant-dns',
};

describe('the local Corefile', () => {
  it('is the deployed one, listening on loopback, reading the tenant through a kubeconfig', async () => {
    const deployed = await readDeployedCorefile();
    const local = localCorefile(deployed, spec);
    expect(local).toContain('.:5301 {\n    bind 127.0.0.1\n');
    expect(local).toContain('    health 127.0.0.1:5302 {\n        lameduck 5s\n    }\n');
    expect(local).toContain('    ready 127.0.0.1:5303\n');
    expect(local).toMatch(
      /kubernetes cluster\.local in-addr\.arpa ip6\.arpa \{\n {8}kubeconfig \/state\/dns\/tenant\.kubeconfig tenantplane-local-tenant-dns\n {8}pods insecure\n/,
    );
    expect(local).not.toContain('forward');
    expect(local).not.toContain(':1053');
  });

  it('changes nothing else: every other line is the deployed one, in order', async () => {
    const deployed = await readDeployedCorefile();
    const local = localCorefile(deployed, spec).split('\n');
    const changed = /^\s*(\.:|bind |health |ready|kubeconfig |forward |max_concurrent|})/;
    const kept = deployed.split('\n').filter((l) => !changed.test(l));
    expect(local.filter((l) => !changed.test(l))).toEqual(kept);
    // The decision about kubernetes.default.svc (docs/tenant-dns.md) is in the deployed text.
    expect(local.join('\n')).toContain(
      'template ANY ANY kubernetes.default.svc.cluster.local {\n        rcode NXDOMAIN\n    }',
    );
  });

  it.each([
    ['the server block', (c: string) => c.replace('.:1053 {', '.:53 {')],
    ['the ready plugin', (c: string) => c.replace('    ready\n', '')],
    [
      'the kubernetes plugin',
      (c: string) => c.replace('kubernetes cluster.local', 'k8s cluster.local'),
    ],
    [
      'a second forward block',
      (c: string) =>
        c.replace('    cache 30\n', '    forward . /etc/resolv.conf {\n    }\n    cache 30\n'),
    ],
  ])('fails loudly when the deployed Corefile changed %s', async (_, change) => {
    const deployed = change(await readDeployedCorefile());
    expect(() => localCorefile(deployed, spec)).toThrow(/expected exactly one/);
  });
});
