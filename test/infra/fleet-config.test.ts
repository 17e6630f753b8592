/**
 * The production settings of config/tenants.yaml (stage, vpc, kmsKeyArn, logLevel, alarms.emails,
 * maxReservedConcurrency, scheduleWindowMinutes, heartbeatMinutes) and what a schedule implies:
 * its longest gap, its flexible window and the heartbeat period.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { REPO_ROOT } from '../../infra/bundle.js';
import { parseTenantsConfig, TenantsConfigError } from '../../infra/config.js';
import { heartbeatOf } from '../../infra/fleet-rules.js';
import {
  heartbeatPeriodMinutes,
  scheduleIntervalMinutes,
  scheduleWindowMinutes,
} from '../../infra/schedule.js';
import { manyTenants, PRODUCTION_YAML, tenantsYaml } from './support.js';

function problems(yaml: string): string[] {
  try {
    parseTenantsConfig(yaml);
  } catch (error) {
    if (error instanceof TenantsConfigError) return error.problems;
    throw error;
  }
  throw new Error('expected the config to be rejected');
}

const tenant = (name: string, extra = '', schedule = 'rate(5 minutes)') =>
  `{name: ${name}, schedule: "${schedule}", tenantSecretId: t/${name}, hostSecretId: h/${name}${extra}}`;

describe('a schedule', () => {
  it.each([
    ['rate(1 minute)', 1],
    ['rate(5 minutes)', 5],
    ['rate(2 hours)', 120],
    ['rate(1 day)', 1440],
    ['cron(0/10 * * * ? *)', 10],
    ['cron(*/15 * * * ? *)', 15],
    ['cron(* * * * ? *)', 1],
    ['cron(0 * * * ? *)', 60],
    ['cron(0,45 * * * ? *)', 45],
    ['cron(0 9 * * ? *)', 1440],
    ['cron(0 8,20 * * ? *)', 720],
    ['cron(0/10 0/2 * * ? *)', 70],
    ['cron(30 1-3 * * ? *)', 1320],
  ])('%s goes at most %i minutes without a tick', (expression, minutes) => {
    expect(scheduleIntervalMinutes(expression)).toBe(minutes);
  });

  it.each([
    'cron(0/10 * ? * MON-FRI *)',
    'cron(0 9 1 * ? *)',
    'cron(0 9 * 1-6 ? *)',
    'cron(0 9 * * ? 2027)',
  ])('%s runs on some days only: its gap is not told', (expression) => {
    expect(scheduleIntervalMinutes(expression)).toBeUndefined();
  });

  it('is spread over half its interval, 1 to 15 minutes, unless the config says', () => {
    expect(scheduleWindowMinutes('rate(1 minute)')).toBe(1);
    expect(scheduleWindowMinutes('rate(5 minutes)')).toBe(2);
    expect(scheduleWindowMinutes('cron(0/10 * * * ? *)')).toBe(5);
    expect(scheduleWindowMinutes('rate(1 hour)')).toBe(15);
    expect(scheduleWindowMinutes('cron(0/10 * ? * MON-FRI *)')).toBe(15);
    expect(scheduleWindowMinutes('rate(1 hour)', 0)).toBe(0);
    expect(scheduleWindowMinutes('rate(1 minute)', 3)).toBe(3);
  });

  it('gives a heartbeat period of the longest of interval and window, timeout, alarm period', () => {
    const base = { windowMinutes: 2, timeoutSeconds: 120, alarmPeriodMinutes: 5 };
    expect(heartbeatPeriodMinutes({ ...base, schedule: 'rate(5 minutes)' })).toBe(7);
    expect(heartbeatPeriodMinutes({ ...base, schedule: 'rate(1 minute)' })).toBe(5);
    expect(
      heartbeatPeriodMinutes({ ...base, schedule: 'rate(1 minute)', timeoutSeconds: 900 }),
    ).toBe(15);
    expect(
      heartbeatPeriodMinutes({ ...base, schedule: 'cron(0/10 * ? * MON-FRI *)' }),
    ).toBeUndefined();
    expect(
      heartbeatPeriodMinutes({
        ...base,
        schedule: 'cron(0/10 * ? * MON-FRI *)',
        heartbeatMinutes: 1320,
      }),
    ).toBe(1320);
  });
});

describe('the production settings', () => {
  it('parse: stage, VPC (global and per tenant), key, log level, e-mails, defaults', () => {
    const config = parseTenantsConfig(PRODUCTION_YAML);
    expect(config.global).toMatchObject({
      stage: 'prod',
      logLevel: 'WARN',
      maxReservedConcurrency: 900,
      vpc: { subnetIds: ['subnet-0123456789abcdef0', 'subnet-0fedcba9876543210'] },
      alarms: { emails: ['oncall@example.com', 'platform@example.com'], heartbeatPeriods: 3 },
    });
    expect(config.tenants[1]!.vpc).toEqual({
      subnetIds: ['subnet-0aaaaaaaaaaaaaaaa'],
      securityGroupIds: ['sg-0bbbbbbbbbbbbbbbb'],
    });
    expect(heartbeatOf(config.tenants[0]!, config.global)).toEqual({
      periodMinutes: 7,
      periods: 3,
    });
  });

  it('are valid as the sample config shows them, commented out', () => {
    const sample = readFileSync(join(REPO_ROOT, 'config', 'tenants.yaml'), 'utf8');
    const uncommented = sample.replace(
      /^( *)# ( *)(stage|emails|vpc|subnetIds|securityGroupIds|kmsKeyArn|logLevel):/gm,
      (_, indent: string, more: string, key: string) =>
        `${more ? `${indent}  ` : indent}${more.slice(2)}${key}:`,
    );
    expect(uncommented).not.toBe(sample);
    const config = parseTenantsConfig(uncommented);
    expect(config.global).toMatchObject({
      stage: 'prod',
      logLevel: 'INFO',
      maxReservedConcurrency: 900,
      kmsKeyArn: expect.stringMatching(/^arn:aws:kms:/),
      vpc: { subnetIds: expect.any(Array), securityGroupIds: ['sg-0123456789abcdef0'] },
      alarms: { emails: ['oncall@example.com'], heartbeatPeriods: 3 },
    });
  });

  it('name the field of every wrong one, all at once', () => {
    const found = problems(
      tenantsYaml(
        [
          tenant('a', ', vpc: {subnetIds: [vpc-1], securityGroupIds: []}'),
          tenant('b', ', kmsKeyArn: alias/secrets, heartbeatMinutes: 0'),
        ],
        [
          '  stage: Prod_1',
          '  logLevel: verbose',
          '  vpc: {subnetIds: [subnet-0123456789abcdef0, subnet-0123456789abcdef0]}',
          '  alarms: {emails: [oncall], heartbeatPeriods: 1}',
          '',
        ].join('\n'),
      ),
    );
    expect(found).toEqual([
      'global: alarms.heartbeatPeriods: must be an integer from 3 to 100, got 1',
      'global: alarms.emails.0: must be an e-mail address, got "oncall"',
      'global: stage: must be a lowercase name of up to 16 letters, digits and single hyphens, starting with a letter (e.g. prod), got "Prod_1"',
      'global: vpc.subnetIds: must not repeat an entry',
      'global: vpc.securityGroupIds: is required',
      'global: logLevel: must be one of DEBUG, INFO, WARN, ERROR, got "verbose"',
      'tenants[0] (a): vpc.subnetIds.0: must be a subnet id (subnet-…), got "vpc-1"',
      'tenants[0] (a): vpc.securityGroupIds: must not be empty',
      'tenants[1] (b): kmsKeyArn: must be a KMS key ARN (arn:aws:kms:<region>:<account>:key/<id>), got "alias/secrets"',
      'tenants[1] (b): heartbeatMinutes: must be an integer from 1 to 10080, got 0',
    ]);
  });

  it("refuse more tenants than the account's reserved concurrency holds, saying why", () => {
    expect(() => manyTenants(900)).not.toThrow();
    const found = problems(
      tenantsYaml(
        Array.from({ length: 4 }, (_, i) => tenant(`t${i}`)),
        '  maxReservedConcurrency: 3\n',
      ),
    );
    expect(found).toEqual([
      "global: maxReservedConcurrency: 4 tenants reserve 4 concurrent executions (1 each), more than the 3 this account may reserve: Lambda keeps 100 of the account's concurrency quota unreserved (a 1,000 quota leaves 900). Ask for a higher Lambda concurrency quota and set maxReservedConcurrency to it minus 100, or deploy some tenants in another account or region",
    ]);
    expect(problems(tenantsYaml(Array.from({ length: 901 }, (_, i) => tenant(`t${i}`))))).toEqual([
      expect.stringContaining('901 tenants reserve 901 concurrent executions'),
    ]);
  });

  it('ask for heartbeatMinutes where the schedule does not tell its gap, and check the window', () => {
    const weekdays = 'cron(0/10 * ? * MON-FRI *)';
    expect(problems(tenantsYaml([tenant('a', '', weekdays)]))).toEqual([
      `tenants[0] (a): heartbeatMinutes: is required for ${weekdays}: the heartbeat alarm cannot tell how long this schedule may go without a tick (it runs on some days only); set its period in minutes, so that global.alarms.heartbeatPeriods of them cover the longest gap (e.g. 1320 for a weekday schedule: 3 x 22 h cover a weekend)`,
    ]);
    expect(() =>
      parseTenantsConfig(tenantsYaml([tenant('a', ', heartbeatMinutes: 1320', weekdays)])),
    ).not.toThrow();
    // 3 periods of a day's gap fit the 7 days an alarm may look back; 3 weeks do not.
    expect(() => parseTenantsConfig(tenantsYaml([tenant('a', '', 'rate(1 day)')]))).not.toThrow();
    expect(problems(tenantsYaml([tenant('a', '', 'rate(7 days)')]))).toEqual([
      expect.stringMatching(
        /^tenants\[0\] \(a\): schedule: its heartbeat would watch 3 periods of 10095 minutes/,
      ),
    ]);
  });
});
