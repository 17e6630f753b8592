/** `spec.workloads.kubeletGateway`: where the tenant's Nodes say their kubelet is. */
import { describe, expect, it } from '@jest/globals';
import { isIpAddress } from '../../../../lib/engine/policy/kubelet-gateway.js';
import { parseSyncPolicy } from '../../../../lib/engine/policy/policy.js';
import { parseWorkloadPolicy } from '../../../../lib/engine/policy/workloads.js';

function parse(kubeletGateway: unknown) {
  const problems: string[] = [];
  const policy = parseWorkloadPolicy({ kubeletGateway }, problems);
  return { policy, problems };
}

describe('spec.workloads.kubeletGateway', () => {
  it.each([
    [{ address: '10.0.0.7', port: 10250 }],
    [{ address: 'fd00::7', port: 443 }],
    [{ address: 'kubelet-gateway.tenantplane-system.svc', port: 10250 }],
  ])('takes %j', (gateway) => {
    const { policy, problems } = parse(gateway);
    expect(problems).toEqual([]);
    expect(policy.kubeletGateway).toEqual(gateway);
    const spec = { hostNamespace: 'tenant-dev', workloads: { kubeletGateway: gateway } };
    expect(parseSyncPolicy('dev', spec).workloads?.kubeletGateway).toEqual(gateway);
  });

  it.each([
    ['not an object', 'gw:10250', ['spec.workloads.kubeletGateway must be an object']],
    ['no address', { port: 10250 }, ['kubeletGateway.address must be an IP address']],
    ['a URL as address', { address: 'https://gw', port: 1 }, ['kubeletGateway.address']],
    ['no port', { address: '10.0.0.7' }, ['kubeletGateway.port must be a port number']],
    ['port 0', { address: '10.0.0.7', port: 0 }, ['kubeletGateway.port']],
    ['port too high', { address: '10.0.0.7', port: 65536 }, ['kubeletGateway.port']],
    ['port as text', { address: '10.0.0.7', port: '10250' }, ['kubeletGateway.port']],
    ['both wrong', { address: '', port: 1.5 }, ['kubeletGateway.address', 'kubeletGateway.port']],
  ])('refuses %s', (_name, gateway, messages) => {
    const { policy, problems } = parse(gateway);
    expect(policy.kubeletGateway).toBeUndefined();
    expect(problems).toHaveLength(messages.length);
    messages.forEach((m, i) => {
      expect(problems[i]).toContain(m);
    });
  });

  it('is absent unless set', () => {
    expect(parseWorkloadPolicy({}, [])).toEqual({});
  });

  it.each([
    ['127.0.0.1', true],
    ['::1', true],
    ['fd00::7', true],
    ['gateway.example', false],
    ['256.1.1.1', false],
  ])('isIpAddress(%s) is %s', (text, ip) => {
    expect(isIpAddress(text)).toBe(ip);
  });
});
