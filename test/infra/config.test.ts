import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { REPO_ROOT } from '../../infra/bundle.js';
import { parseTenantsConfig, scheduleProblem, TenantsConfigError } from '../../infra/config.js';
import { MAX_TENANT_NAME_LENGTH, tenantNameProblem } from '../../lib/common/index.js';
import { InvalidPolicyError } from '../../lib/engine/errors.js';
import { parseSyncPolicy } from '../../lib/engine/policy/policy.js';
import { tenantsYaml } from './support.js';

function problems(yaml: string): string[] {
  try {
    parseTenantsConfig(yaml);
  } catch (error) {
    if (error instanceof TenantsConfigError) return error.problems;
    throw error;
  }
  throw new Error('expected the config to be rejected');
}

describe('tenants config', () => {
  it('accepts the repository config', () => {
    const config = parseTenantsConfig(
      readFileSync(join(REPO_ROOT, 'config', 'tenants.yaml'), 'utf8'),
    );
    expect(config.tenants.map((t) => t.name)).toEqual(['dev', 'staging', 'prod']);
    expect(config.global.eventBusName).toBe('tenantplane');
    // Each tenant its own host identity.
    expect(config.tenants.map((t) => t.hostSecretId)).toEqual([
      'tenantplane/host/dev/kubeconfig',
      'tenantplane/host/staging/kubeconfig',
      'tenantplane/host/prod/kubeconfig',
    ]);
    // The followed tenant of the sample: every minute, quiet after 30 s.
    expect(config.tenants[2]).toMatchObject({
      schedule: 'rate(1 minute)',
      follow: { quietSeconds: 30 },
    });
    expect(config.tenants[0]!.follow).toBeUndefined();
    expect(config.tenants[0]!.budget).toEqual({
      maxWrites: 500,
      pageSize: 250,
      concurrency: 8,
      timeoutSeconds: 120,
    });
  });

  it('applies defaults for the bus, retention and alarms', () => {
    const config = parseTenantsConfig(
      'tenants:\n  - {name: a, schedule: rate(1 minute), tenantSecretId: a, hostSecretId: host-a}\n',
    );
    expect(config.global).toEqual({
      eventBusName: 'tenantplane',
      logRetentionDays: 30,
      maxReservedConcurrency: 900,
      alarms: {
        periodMinutes: 5,
        evaluationPeriods: 1,
        failedInvocationsThreshold: 1,
        incompletePassesThreshold: 3,
        skipsThreshold: 1,
        throttlesThreshold: 3,
        heartbeatPeriods: 3,
      },
    });
  });

  it('names the tenant and the field of every problem, all at once', () => {
    const found = problems(
      tenantsYaml([
        '{name: dev, schedule: "every 5m", tenantSecretId: "tp/dev", hostSecretId: "tp/host/dev"}',
        '{name: Bad_Name, schedule: "rate(5 minutes)", tenantSecretId: "tp/x", hostSecretId: "tp/host/x"}',
        '{name: qa, schedule: "rate(5 minutes)", hostSecretId: "tp/host/qa", budget: {maxWrites: -1, concurrency: 1000}, memoryMiB: 64}',
        '{name: dev, schedule: "cron(0 * * * ? *)", tenantSecretId: "tp/dev2", colour: blue}',
      ]),
    );
    expect(found).toEqual([
      'tenants[0] (dev): schedule: must be rate(<n> <unit>) or cron(<6 fields>), got "every 5m"',
      `tenants[1] (Bad_Name): name: ${tenantNameProblem('Bad_Name')}`,
      'tenants[2] (qa): memoryMiB: must be an integer from 128 to 10240, got 64',
      'tenants[2] (qa): budget.maxWrites: must be an integer from 1 to 1000000, got -1',
      'tenants[2] (qa): budget.concurrency: must be an integer from 1 to 64, got 1000',
      "tenants[2] (qa): tenantSecretId: is required (or tenantEks: {clusterName, region}, for a tenant cluster on EKS reached with the function's IAM role)",
      'tenants[3] (dev): colour: unknown field (known: name, schedule, tenantSecretId, tenantEks, hostSecretId, hostEks, budget, memoryMiB, follow, vpc, kmsKeyArn, heartbeatMinutes, wake)',
      "tenants[3] (dev): hostSecretId: is required (or hostEks: {clusterName, region}, for a host on EKS reached with the function's IAM role)",
      'tenants[3] (dev): name: duplicate of tenants[0]',
    ]);
  });

  it('validates the global section', () => {
    expect(
      problems(
        'global: {eventBusName: default, logRetentionDays: 10, alarms: {topicName: a, topicArn: "arn:aws:sns:eu-west-1:123456789012:b"}}\ntenants:\n  - {name: a, schedule: rate(1 minute), tenantSecretId: a, hostSecretId: h}\n',
      ),
    ).toEqual([
      'global: eventBusName: must be a custom bus, not default',
      expect.stringMatching(/^global: logRetentionDays: must be one of 1, 3, 5, .*got 10$/),
      'global: alarms: set topicName (create a topic) or topicArn (use one), not both',
    ]);
    expect(problems('global: {}\ntenants: []\n')).toEqual([
      'config: tenants: is required (a non-empty list)',
    ]);
    expect(problems('tenants: [: bad')).toEqual([expect.stringMatching(/^not valid YAML/)]);
  });

  it('refuses a tenant that reads a host secret as its own tenant kubeconfig', () => {
    expect(
      problems(
        'tenants:\n  - {name: a, schedule: rate(1 minute), tenantSecretId: h, hostSecretId: h}\n  - {name: b, schedule: rate(1 minute), tenantSecretId: "arn:aws:secretsmanager:eu-west-1:123456789012:secret:h-AbCdEf", hostSecretId: hb}\n',
      ),
    ).toEqual([
      'tenants[0] (a): tenantSecretId: must not be a host secret (it is the hostSecretId of tenants[0] (a))',
      'tenants[1] (b): tenantSecretId: must not be a host secret (it is the hostSecretId of tenants[0] (a))',
    ]);
  });

  it('gives each tenant its own host credentials: a shared host secret is refused', () => {
    expect(
      problems(
        [
          'tenants:',
          '  - {name: a, schedule: rate(1 minute), tenantSecretId: ta, hostSecretId: tp/host}',
          '  - {name: b, schedule: rate(1 minute), tenantSecretId: tb, hostSecretId: tp/host-b}',
          '  - {name: c, schedule: rate(1 minute), tenantSecretId: tc, hostSecretId: tp/host}',
          // The same secret by its ARN (Secrets Manager appends a 6-character suffix to names).
          '  - {name: d, schedule: rate(1 minute), tenantSecretId: td, hostSecretId: "arn:aws:secretsmanager:eu-west-1:123456789012:secret:tp/host-b-Xy12Zw"}',
          '',
        ].join('\n'),
      ),
    ).toEqual([
      'tenants[2] (c): hostSecretId: is already the host secret of tenants[0] (a): each tenant needs its own host credentials',
      'tenants[3] (d): hostSecretId: is already the host secret of tenants[1] (b): each tenant needs its own host credentials',
    ]);
  });

  it('reads follow.quietSeconds and refuses a follow that is malformed or outlasts its timeout', () => {
    const ok = parseTenantsConfig(
      'tenants:\n  - {name: a, schedule: rate(1 minute), tenantSecretId: a, hostSecretId: ha, follow: {quietSeconds: 45}, budget: {timeoutSeconds: 300}}\n',
    );
    expect(ok.tenants[0]!.follow).toEqual({ quietSeconds: 45 });
    expect(
      problems(
        [
          'tenants:',
          '  - {name: a, schedule: rate(1 minute), tenantSecretId: a, hostSecretId: ha, follow: {}}',
          '  - {name: b, schedule: rate(1 minute), tenantSecretId: b, hostSecretId: hb, follow: {quietSeconds: 0}}',
          '  - {name: c, schedule: rate(1 minute), tenantSecretId: c, hostSecretId: hc, follow: {quietSeconds: 2.5, idle: 3}}',
          '  - {name: d, schedule: rate(1 minute), tenantSecretId: d, hostSecretId: hd, follow: 30}',
          // The quiet must fit in the timeout, with room for the pass and the end of the follow.
          '  - {name: e, schedule: rate(1 minute), tenantSecretId: e, hostSecretId: he, follow: {quietSeconds: 100}, budget: {timeoutSeconds: 120}}',
          '  - {name: f, schedule: rate(1 minute), tenantSecretId: f, hostSecretId: hf, follow: {quietSeconds: 601}}',
          // Without budget.timeoutSeconds a followed tenant gets 900 s: 600 fits.
          '  - {name: g, schedule: rate(1 minute), tenantSecretId: g, hostSecretId: hg, follow: {quietSeconds: 600}}',
          '',
        ].join('\n'),
      ),
    ).toEqual([
      'tenants[0] (a): follow.quietSeconds: is required',
      'tenants[1] (b): follow.quietSeconds: must be an integer from 1 to 600, got 0',
      'tenants[2] (c): follow.quietSeconds: must be an integer from 1 to 600, got 2.5',
      'tenants[2] (c): follow.idle: unknown field (known: quietSeconds)',
      'tenants[3] (d): follow: must be a mapping with quietSeconds (e.g. {quietSeconds: 30})',
      'tenants[4] (e): follow.quietSeconds: must leave at least 30 s of the function timeout (budget.timeoutSeconds 120) for the pass and the end of the follow, got 100',
      'tenants[5] (f): follow.quietSeconds: must be an integer from 1 to 600, got 601',
    ]);
  });

  it('says where the one global host secret went', () => {
    expect(
      problems(
        'global: {hostSecretId: h}\ntenants:\n  - {name: a, schedule: rate(1 minute), tenantSecretId: a, hostSecretId: ha}\n',
      ),
    ).toEqual([
      'global: hostSecretId: moved: give each tenant its own host secret as tenants[].hostSecretId (one host identity per tenant, see deploy/rbac/)',
    ]);
  });

  it('checks schedule expressions the way EventBridge Scheduler reads them', () => {
    expect(scheduleProblem('rate(5 minutes)')).toBeUndefined();
    expect(scheduleProblem('rate(1 hour)')).toBeUndefined();
    expect(scheduleProblem('cron(0/10 * * * ? *)')).toBeUndefined();
    expect(scheduleProblem('cron(0 12 ? * MON-FRI *)')).toBeUndefined();
    expect(scheduleProblem('rate(1 minutes)')).toMatch(/singular/);
    expect(scheduleProblem('rate(5 minute)')).toMatch(/plural/);
    expect(scheduleProblem('rate(0 minutes)')).toMatch(/at least 1/);
    expect(scheduleProblem('cron(*/5 * * * *)')).toMatch(/6 fields/);
    expect(scheduleProblem('cron(0 * * * * *)')).toMatch(/exactly one of day-of-month/);
    expect(scheduleProblem('*/5 * * * *')).toMatch(/must be rate/);
  });

  describe('tenant names: what the config accepts, a pass accepts', () => {
    const longest = 'a'.repeat(MAX_TENANT_NAME_LENGTH);
    const table: [string, string, boolean][] = [
      ['a short label', 'dev', true],
      ['a label with digits and dashes', 'team-a-2', true],
      ['a 63-character label', longest, true],
      ['a 64-character label', `${longest}a`, false],
      ["a subdomain with '.'", 'team.dev', false],
      ['uppercase', 'Dev', false],
      ['an underscore', 'team_a', false],
      ["a leading '-'", '-dev', false],
    ];

    function configAccepts(name: string): boolean {
      try {
        parseTenantsConfig(
          tenantsYaml([
            `{name: "${name}", schedule: "rate(5 minutes)", tenantSecretId: "tp/t", hostSecretId: "tp/h"}`,
          ]),
        );
        return true;
      } catch (error) {
        if (error instanceof TenantsConfigError) return false;
        throw error;
      }
    }

    function passAccepts(name: string): boolean {
      try {
        parseSyncPolicy(name, { hostNamespace: 'tenant-host' });
        return true;
      } catch (error) {
        if (error instanceof InvalidPolicyError) return false;
        throw error;
      }
    }

    it.each(table)('%s (%s): accepted=%s by both', (_, name, accepted) => {
      expect(configAccepts(name)).toBe(accepted);
      expect(passAccepts(name)).toBe(accepted);
    });

    it('says why, naming the tenant and the field', () => {
      expect(
        problems(
          tenantsYaml([
            `{name: "team.dev", schedule: "rate(5 minutes)", tenantSecretId: "tp/t", hostSecretId: "tp/h"}`,
          ]),
        ),
      ).toEqual([`tenants[0] (team.dev): name: ${tenantNameProblem('team.dev')}`]);
      const tooLong = `${longest}a`;
      expect(
        problems(
          tenantsYaml([
            `{name: ${tooLong}, schedule: "rate(1 minute)", tenantSecretId: t, hostSecretId: h}`,
          ]),
        ),
      ).toEqual([`tenants[0] (${tooLong}): name: ${tenantNameProblem(tooLong)}`]);
    });
  });

  it('reports malformed sections and unknown fields where they are', () => {
    expect(
      problems(
        'global: {alarms: 5}\ncolour: blue\ntenants:\n  - 7\n  - {name: b, schedule: rate(1 minute), tenantSecretId: b, hostSecretId: hb, budget: {maxWrite: 5}}\n',
      ),
    ).toEqual([
      'global: alarms: must be a mapping',
      'config: colour: unknown field (known: global, tenants)',
      'tenants[0]: (entry): must be a mapping with name, schedule, tenantSecretId and hostSecretId',
      'tenants[1] (b): budget.maxWrite: unknown field (known: maxWrites, pageSize, concurrency, timeoutSeconds)',
    ]);
    expect(problems('[1, 2]')).toEqual(['config: must be a mapping with global and tenants']);
  });
});
