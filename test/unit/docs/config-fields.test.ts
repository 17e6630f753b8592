/**
 * docs/configuration.md, "The deployment: config/tenants.yaml", names every field the config
 * accepts. The known fields are read from the schema itself (infra/config.ts, its "unknown field
 * (known: ...)" answer at each level), so a field added there without its doc line fails here.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import { parseTenantsConfig, TenantsConfigError } from '../../../infra/config.js';

const DOC = readFileSync(new URL('../../../docs/configuration.md', import.meta.url), 'utf8');
const SECTION = DOC.split('\n## The deployment: `config/tenants.yaml` (AWS CDK)\n')[1] ?? '';

const TENANT = '{name: dev, schedule: rate(5 minutes), tenantSecretId: t, hostSecretId: h';

/** Where to put an unknown field, as a config: the global level, alarms, a tenant, ... */
const LEVELS: [string, string][] = [
  ['config', `global: {}\nzzUnknown: 1\ntenants: [${TENANT}}]\n`],
  ['global', `global: {zzUnknown: 1}\ntenants: [${TENANT}}]\n`],
  ['global.alarms', `global: {alarms: {zzUnknown: 1}}\ntenants: [${TENANT}}]\n`],
  [
    'global.vpc',
    `global: {vpc: {subnetIds: [subnet-0123456789abcdef0], securityGroupIds: [sg-0123456789abcdef0], zzUnknown: 1}}\ntenants: [${TENANT}}]\n`,
  ],
  ['global.wake', `global: {wake: {zzUnknown: 1}}\ntenants: [${TENANT}}]\n`],
  ['tenants[]', `global: {}\ntenants: [${TENANT}, zzUnknown: 1}]\n`],
  ['tenants[].budget', `global: {}\ntenants: [${TENANT}, budget: {zzUnknown: 1}}]\n`],
  [
    'tenants[].follow',
    `global: {}\ntenants: [${TENANT}, follow: {quietSeconds: 30, zzUnknown: 1}}]\n`,
  ],
  [
    'tenants[].hostEks',
    'global: {}\ntenants: [{name: dev, schedule: rate(5 minutes), tenantSecretId: t, hostEks: {clusterName: h, region: eu-west-1, zzUnknown: 1}}]\n',
  ],
];

/** The fields the schema knows at a level, from its own message about an unknown one. */
function knownFields(yaml: string): string[] {
  try {
    parseTenantsConfig(yaml);
  } catch (error) {
    if (!(error instanceof TenantsConfigError)) throw error;
    const message = error.problems.find((p) => p.includes('zzUnknown'));
    const known = /unknown field \(known: ([^)]*)\)/.exec(message ?? '')?.[1];
    if (known) return known.split(', ');
    throw new Error(`no list of known fields in: ${error.problems.join('; ')}`);
  }
  throw new Error('an unknown field was accepted');
}

describe('docs/configuration.md names every field config/tenants.yaml accepts', () => {
  it('has the section', () => {
    expect(SECTION.length).toBeGreaterThan(1000);
  });

  it.each(LEVELS)('%s', (_, yaml) => {
    const fields = knownFields(yaml);
    expect(fields.length).toBeGreaterThan(0);
    const missing = fields.filter((f) => !new RegExp(`\\b${f}\\b`).test(SECTION));
    expect(missing).toEqual([]);
  });
});
