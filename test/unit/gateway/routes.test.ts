/** The kubelet paths the gateway serves, and the host apiserver request of each. */
import { describe, expect, it } from '@jest/globals';
import { hostPath, parseKubeletRequest } from '../../../lib/gateway/routes.js';

const host = (url: string, upgrade: boolean) => {
  const request = parseKubeletRequest(url, upgrade);
  return request && hostPath(request, 'tenant-dev', 'web-x-apps-x-dev');
};
const base = '/api/v1/namespaces/tenant-dev/pods/web-x-apps-x-dev';

describe('parseKubeletRequest', () => {
  it.each([
    [
      'logs with every option the apiserver sends',
      '/containerLogs/apps/web/nginx?follow=true&previous=true&timestamps=true&sinceSeconds=5&tailLines=3&limitBytes=9&evil=1',
      false,
      `${base}/log?container=nginx&follow=true&previous=true&timestamps=true&sinceSeconds=5&tailLines=3&limitBytes=9`,
    ],
    [
      'exec: kubelet stream names become the apiserver’s, the command kept in order',
      '/exec/apps/web/nginx?command=echo&command=hi&input=1&output=1&error=1&tty=0',
      true,
      `${base}/exec?container=nginx&stdin=true&stdout=true&stderr=true&command=echo&command=hi`,
    ],
    [
      'attach',
      '/attach/apps/web/nginx?output=1',
      true,
      `${base}/attach?container=nginx&stdout=true`,
    ],
    [
      'port-forward',
      '/portForward/apps/web?port=80&port=8080',
      true,
      `${base}/portforward?ports=80&ports=8080`,
    ],
  ])('%s', (_name, url, upgrade, expected) => {
    expect(host(url, upgrade)).toBe(expected);
  });

  it.each([
    ['logs asked as an upgrade', '/containerLogs/apps/web/nginx', true],
    ['exec without an upgrade', '/exec/apps/web/nginx?command=ls', false],
    ['exec without a command', '/exec/apps/web/nginx?output=1', true],
    ['a path outside the gateway', '/pods', false],
    ['the kubelet’s own endpoints', '/runningpods/', false],
    ['a name that is no name', '/containerLogs/apps/..%2F..%2Fx/nginx', false],
    ['too many parts', '/containerLogs/apps/web/nginx/more', false],
    ['a port that is no port', '/portForward/apps/web?port=80;rm', true],
  ])('refuses %s', (_name, url, upgrade) => {
    expect(parseKubeletRequest(url, upgrade)).toBeUndefined();
  });
});
