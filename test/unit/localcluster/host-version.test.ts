import { describe, expect, it } from '@jest/globals';
import { binariesOf, hostKubernetesVersion } from '../../../lib/localcluster/host-version.js';
import {
  binaryPaths,
  KUBERNETES_VERSION,
  LocalClusterError,
} from '../../../lib/localcluster/index.js';

describe('the host release of the local plane (TENANTPLANE_KUBERNETES_VERSION)', () => {
  it('is the pinned one unless the variable names another', () => {
    expect(hostKubernetesVersion({})).toBe(KUBERNETES_VERSION);
    expect(hostKubernetesVersion({ TENANTPLANE_KUBERNETES_VERSION: ' ' })).toBe(KUBERNETES_VERSION);
    expect(hostKubernetesVersion({ TENANTPLANE_KUBERNETES_VERSION: '1.33.13' })).toBe('1.33.13');
    expect(hostKubernetesVersion({ TENANTPLANE_KUBERNETES_VERSION: 'v1.34.4' })).toBe('1.34.4');
  });

  it('refuses a malformed release, or one older than 1.33', () => {
    for (const bad of ['1.33', 'latest', '1.33.x', '2.0.0-rc.1']) {
      expect(() => hostKubernetesVersion({ TENANTPLANE_KUBERNETES_VERSION: bad })).toThrow(
        LocalClusterError,
      );
    }
    expect(() => hostKubernetesVersion({ TENANTPLANE_KUBERNETES_VERSION: '1.32.9' })).toThrow(
      /from 1\.33 on/,
    );
  });

  it('runs the host from its own cache directory and the tenant from the pinned one', () => {
    const plane = { binaries: binaryPaths(), hostBinaries: binaryPaths('1.33.13') };
    expect(binariesOf(plane, 'host')['kube-apiserver']).toContain('kubernetes-v1.33.13');
    expect(binariesOf(plane, 'tenant')['kube-apiserver']).toContain(
      `kubernetes-v${KUBERNETES_VERSION}`,
    );
    expect(binariesOf({ binaries: plane.binaries }, 'host')).toBe(plane.binaries);
  });
});
