/**
 * The EKS token: its format (`aws eks get-token`'s), a signature STS would accept (checked by an
 * independent SigV4 implementation), and when a source signs anew (a fake clock).
 */
import { describe, expect, it } from '@jest/globals';
import type { AwsCredentialIdentity } from '@smithy/types';
import {
  CLUSTER_ID_HEADER,
  EKS_TOKEN_LIFETIME_MS,
  EKS_TOKEN_PREFIX,
  EKS_TOKEN_RENEW_AFTER_MS,
  EksTokenSource,
  signEksToken,
  stsHostname,
} from '../../../../lib/adapters/eks/token.js';
import { amzDateMs, checkPresignedGetCallerIdentity } from '../../../fixtures/sts-presign.js';

const CLUSTER = { clusterName: 'host-prod', region: 'eu-west-1' };
const CREDENTIALS: AwsCredentialIdentity = {
  accessKeyId: 'AKIDEXAMPLE',
  secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY',
  sessionToken: 'session/token+with=odd/characters',
};
const T0 = Date.UTC(2026, 11, 6, 6, 40, 0);

/** The presigned URL inside a token. */
function urlOf(token: string): URL {
  expect(token.startsWith(EKS_TOKEN_PREFIX)).toBe(true);
  const body = token.slice(EKS_TOKEN_PREFIX.length);
  expect(body).toMatch(/^[A-Za-z0-9_-]+$/); // base64url, no padding
  return new URL(Buffer.from(body, 'base64url').toString('utf8'));
}

function check(token: string, nowMs: number, clusterName = CLUSTER.clusterName) {
  return checkPresignedGetCallerIdentity({
    url: urlOf(token).toString(),
    headers: { [CLUSTER_ID_HEADER]: clusterName },
    region: CLUSTER.region,
    secretOf: (id) => (id === CREDENTIALS.accessKeyId ? CREDENTIALS.secretAccessKey : undefined),
    nowMs,
    maxAgeMs: EKS_TOKEN_LIFETIME_MS,
  });
}

/** A clock the test moves, and credentials that count how often they are asked for. */
function fakes() {
  const clock = { t: T0, now: () => clock.t };
  const calls = { credentials: 0 };
  const credentials = async () => {
    calls.credentials += 1;
    return CREDENTIALS;
  };
  return { clock, calls, credentials };
}

describe('signEksToken', () => {
  it('is a k8s-aws-v1 presigned GetCallerIdentity URL of the regional STS, as aws eks get-token makes', async () => {
    const url = urlOf(await signEksToken(CLUSTER, CREDENTIALS, T0));
    expect(url.protocol).toBe('https:');
    expect(url.host).toBe('sts.eu-west-1.amazonaws.com');
    expect(url.pathname).toBe('/');
    const q = url.searchParams;
    expect(q.get('Action')).toBe('GetCallerIdentity');
    expect(q.get('Version')).toBe('2011-06-15');
    expect(q.get('X-Amz-Algorithm')).toBe('AWS4-HMAC-SHA256');
    expect(q.get('X-Amz-Credential')).toBe('AKIDEXAMPLE/20261206/eu-west-1/sts/aws4_request');
    expect(q.get('X-Amz-Date')).toBe('20261206T064000Z');
    expect(q.get('X-Amz-Expires')).toBe('60');
    expect(q.get('X-Amz-SignedHeaders')).toBe(`host;${CLUSTER_ID_HEADER}`);
    expect(q.get('X-Amz-Security-Token')).toBe(CREDENTIALS.sessionToken);
    expect(q.get('X-Amz-Signature')).toMatch(/^[0-9a-f]{64}$/);
  });

  it('carries a signature STS accepts for the cluster it names, and for no other', async () => {
    const token = await signEksToken(CLUSTER, CREDENTIALS, T0);
    expect(check(token, T0 + 1000)).toEqual({
      ok: true,
      accessKeyId: CREDENTIALS.accessKeyId,
      sessionToken: CREDENTIALS.sessionToken,
    });
    expect(check(token, T0 + 1000, 'another-cluster')).toEqual({
      ok: false,
      reason: 'signature does not match',
    });
  });

  it('is refused once 15 minutes old', async () => {
    const token = await signEksToken(CLUSTER, CREDENTIALS, T0);
    expect(check(token, T0 + EKS_TOKEN_LIFETIME_MS).ok).toBe(true);
    expect(check(token, T0 + EKS_TOKEN_LIFETIME_MS + 1000)).toEqual({
      ok: false,
      reason: 'expired',
    });
  });

  it('signs without a session token when the credentials have none', async () => {
    const { sessionToken: _, ...longTerm } = CREDENTIALS;
    const token = await signEksToken(CLUSTER, longTerm, T0);
    expect(urlOf(token).searchParams.has('X-Amz-Security-Token')).toBe(false);
    expect(check(token, T0).ok).toBe(true);
  });

  it.each([
    ['eu-west-1', 'sts.eu-west-1.amazonaws.com'],
    ['us-east-1', 'sts.us-east-1.amazonaws.com'],
    ['cn-north-1', 'sts.cn-north-1.amazonaws.com.cn'],
  ])('presigns for the STS endpoint of %s', (region, host) => {
    expect(stsHostname(region)).toBe(host);
  });
});

describe('EksTokenSource', () => {
  it('reuses a token until it is 10 minutes old, then signs a new one', async () => {
    const { clock, calls, credentials } = fakes();
    const source = new EksTokenSource(CLUSTER, { credentials, clock });
    const first = await source.token();
    clock.t = T0 + EKS_TOKEN_RENEW_AFTER_MS - 1;
    expect(await source.token()).toBe(first);
    expect(calls.credentials).toBe(1);
    clock.t = T0 + EKS_TOKEN_RENEW_AFTER_MS;
    const second = await source.token();
    expect(second).not.toBe(first);
    expect(calls.credentials).toBe(2);
    expect(amzDateMs(urlOf(second).searchParams.get('X-Amz-Date')!)).toBe(clock.t);
    // Renewed 5 minutes before the cluster would refuse the old one.
    expect(check(first, clock.t).ok).toBe(true);
  });

  it('signs anew after the cluster refused the token', async () => {
    const { clock, calls, credentials } = fakes();
    const source = new EksTokenSource(CLUSTER, { credentials, clock });
    await source.token();
    clock.t += 1000;
    source.rejected();
    const renewed = await source.token();
    expect(calls.credentials).toBe(2);
    expect(amzDateMs(urlOf(renewed).searchParams.get('X-Amz-Date')!)).toBe(T0 + 1000);
  });

  it('shares one signing between concurrent requests', async () => {
    const { clock, calls, credentials } = fakes();
    const source = new EksTokenSource(CLUSTER, { credentials, clock });
    const tokens = await Promise.all([source.token(), source.token(), source.token()]);
    expect(new Set(tokens).size).toBe(1);
    expect(calls.credentials).toBe(1);
  });

  it('does not keep a failed signing: the next request tries again', async () => {
    const { clock } = fakes();
    let fail = true;
    const source = new EksTokenSource(CLUSTER, {
      clock,
      credentials: async () => {
        if (fail) throw new Error('no credentials in the environment');
        return CREDENTIALS;
      },
    });
    await expect(source.token()).rejects.toThrow('no credentials in the environment');
    fail = false;
    expect(check(await source.token(), T0).ok).toBe(true);
  });
});
