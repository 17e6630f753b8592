/**
 * The tenants config (`config/tenants.yaml`): which tenant clusters get a sync function, on what
 * schedule, with which secrets and budget. Validated up front; every problem is reported with the
 * tenant and the field it is about, all at once.
 */
import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';

export interface TenantBudgetConfig {
  maxWrites?: number;
  pageSize?: number;
  concurrency?: number;
  /** The function timeout; the pass deadline is derived from it at run time. */
  timeoutSeconds?: number;
}

export interface TenantConfig {
  /** The TenantCluster name (a Kubernetes object name). */
  name: string;
  /** An EventBridge Scheduler expression: `rate(5 minutes)` or `cron(0/10 * * * ? *)`. */
  schedule: string;
  /** Secrets Manager secret (name or ARN) with the tenant cluster's kubeconfig. */
  tenantSecretId: string;
  budget?: TenantBudgetConfig;
  memoryMiB?: number;
}

export interface AlarmsConfig {
  periodMinutes: number;
  evaluationPeriods: number;
  failedInvocationsThreshold: number;
  incompletePassesThreshold: number;
  skipsThreshold: number;
  /** Create an SNS topic of this name in the shared stack and notify it. */
  topicName?: string;
  /** Or notify an existing topic. */
  topicArn?: string;
}

export interface GlobalConfig {
  hostSecretId: string;
  eventBusName: string;
  logRetentionDays: number;
  alarms: AlarmsConfig;
}

export interface TenantsConfig {
  global: GlobalConfig;
  tenants: TenantConfig[];
}

export class TenantsConfigError extends Error {
  readonly problems: string[];
  constructor(origin: string, problems: string[]) {
    super(`invalid tenants config ${origin}:\n  - ${problems.join('\n  - ')}`);
    this.name = 'TenantsConfigError';
    this.problems = problems;
  }
}

/** CloudWatch Logs accepts only these retention periods. */
export const LOG_RETENTION_DAYS = [
  1, 3, 5, 7, 14, 30, 60, 90, 120, 150, 180, 365, 400, 545, 731, 1096, 1827, 2192, 2557, 2922, 3288,
  3653,
] as const;

export const DEFAULT_ALARMS: AlarmsConfig = {
  periodMinutes: 5,
  evaluationPeriods: 1,
  failedInvocationsThreshold: 1,
  incompletePassesThreshold: 3,
  skipsThreshold: 1,
};

const TENANT_NAME = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const SECRET_NAME = /^[A-Za-z0-9/_+=.@-]{1,512}$/;
const SECRET_ARN = /^arn:aws[a-z-]*:secretsmanager:[a-z0-9-]+:\d{12}:secret:[A-Za-z0-9/_+=.@-]+$/;
const RATE = /^rate\((\d+) (minute|minutes|hour|hours|day|days)\)$/;
const EVENT_BUS_NAME = /^[A-Za-z0-9._-]{1,256}$/;
const TOPIC_NAME = /^[A-Za-z0-9_-]{1,256}$/;

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Checks one schedule expression; returns the problem, or undefined when it is valid. */
export function scheduleProblem(expression: string): string | undefined {
  const rate = RATE.exec(expression);
  if (rate) {
    const n = Number(rate[1]);
    const unit = rate[2]!;
    if (n < 1) return `rate must be at least 1, got ${JSON.stringify(expression)}`;
    if (n === 1 && unit.endsWith('s'))
      return `use the singular unit for a rate of 1 (e.g. rate(1 minute)), got ${JSON.stringify(expression)}`;
    if (n > 1 && !unit.endsWith('s'))
      return `use the plural unit for a rate above 1 (e.g. rate(5 minutes)), got ${JSON.stringify(expression)}`;
    return undefined;
  }
  const cron = /^cron\((.*)\)$/.exec(expression);
  if (cron) {
    const fields = cron[1]!.trim().split(/\s+/);
    if (fields.length !== 6)
      return `a cron expression has 6 fields (minutes hours day-of-month month day-of-week year), got ${fields.length} in ${JSON.stringify(expression)}`;
    const [, , dom, , dow] = fields;
    if ((dom === '?') === (dow === '?'))
      return `exactly one of day-of-month and day-of-week must be '?', got ${JSON.stringify(expression)}`;
    return undefined;
  }
  return `must be rate(<n> <unit>) or cron(<6 fields>), got ${JSON.stringify(expression)}`;
}

/** Collects problems, each prefixed with where it is (the tenant) and the field. */
class Checker {
  constructor(
    private readonly where: string,
    readonly problems: string[] = [],
  ) {}
  fail(field: string, message: string): void {
    this.problems.push(`${this.where}: ${field}: ${message}`);
  }
  string(
    o: Obj,
    field: string,
    pattern: RegExp,
    hint: string,
    required = true,
  ): string | undefined {
    const v = o[field];
    if (v === undefined) {
      if (required) this.fail(field, 'is required');
      return undefined;
    }
    if (typeof v !== 'string' || !pattern.test(v)) {
      this.fail(field, `${hint}, got ${JSON.stringify(v)}`);
      return undefined;
    }
    return v;
  }
  int(o: Obj, field: string, min: number, max: number, label = field): number | undefined {
    const v = o[field];
    if (v === undefined) return undefined;
    if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) {
      this.fail(label, `must be an integer from ${min} to ${max}, got ${JSON.stringify(v)}`);
      return undefined;
    }
    return v;
  }
  unknownKeys(o: Obj, known: readonly string[], prefix = ''): void {
    for (const key of Object.keys(o))
      if (!known.includes(key))
        this.fail(prefix + key, `unknown field (known: ${known.join(', ')})`);
  }
}

function secretId(c: Checker, o: Obj, field: string): string | undefined {
  const v = o[field];
  if (v === undefined) {
    c.fail(field, 'is required');
    return undefined;
  }
  if (typeof v !== 'string' || !(SECRET_NAME.test(v) || SECRET_ARN.test(v))) {
    c.fail(field, `must be a Secrets Manager secret name or ARN, got ${JSON.stringify(v)}`);
    return undefined;
  }
  return v;
}

function parseAlarms(c: Checker, raw: unknown): AlarmsConfig {
  if (raw === undefined) return { ...DEFAULT_ALARMS };
  if (!isObj(raw)) {
    c.fail('alarms', 'must be a mapping');
    return { ...DEFAULT_ALARMS };
  }
  c.unknownKeys(
    raw,
    [
      'periodMinutes',
      'evaluationPeriods',
      'failedInvocationsThreshold',
      'incompletePassesThreshold',
      'skipsThreshold',
      'topicName',
      'topicArn',
    ],
    'alarms.',
  );
  const alarms: AlarmsConfig = {
    periodMinutes: c.int(raw, 'periodMinutes', 1, 1440) ?? DEFAULT_ALARMS.periodMinutes,
    evaluationPeriods: c.int(raw, 'evaluationPeriods', 1, 100) ?? DEFAULT_ALARMS.evaluationPeriods,
    failedInvocationsThreshold:
      c.int(raw, 'failedInvocationsThreshold', 1, 100000) ??
      DEFAULT_ALARMS.failedInvocationsThreshold,
    incompletePassesThreshold:
      c.int(raw, 'incompletePassesThreshold', 1, 100000) ??
      DEFAULT_ALARMS.incompletePassesThreshold,
    skipsThreshold: c.int(raw, 'skipsThreshold', 1, 1000000) ?? DEFAULT_ALARMS.skipsThreshold,
  };
  const topicName = c.string(raw, 'topicName', TOPIC_NAME, 'must be an SNS topic name', false);
  const topicArn = c.string(
    raw,
    'topicArn',
    /^arn:aws[a-z-]*:sns:[a-z0-9-]+:\d{12}:[A-Za-z0-9_-]+$/,
    'must be an SNS topic ARN',
    false,
  );
  if (topicName !== undefined && topicArn !== undefined)
    c.fail('alarms', 'set topicName (create a topic) or topicArn (use one), not both');
  if (topicName !== undefined) alarms.topicName = topicName;
  if (topicArn !== undefined) alarms.topicArn = topicArn;
  return alarms;
}

function parseTenant(c: Checker, raw: unknown): TenantConfig | undefined {
  if (!isObj(raw)) {
    c.fail('(entry)', 'must be a mapping with name, schedule and tenantSecretId');
    return undefined;
  }
  c.unknownKeys(raw, ['name', 'schedule', 'tenantSecretId', 'budget', 'memoryMiB']);
  const name = c.string(
    raw,
    'name',
    TENANT_NAME,
    "must be a Kubernetes object name (lowercase letters, digits, '-' and '.')",
  );
  if (name !== undefined && name.length > 253) c.fail('name', 'must be at most 253 characters');
  let schedule: string | undefined;
  if (raw.schedule === undefined) c.fail('schedule', 'is required');
  else if (typeof raw.schedule !== 'string') c.fail('schedule', 'must be a string');
  else {
    const problem = scheduleProblem(raw.schedule.trim());
    if (problem) c.fail('schedule', problem);
    else schedule = raw.schedule.trim();
  }
  const tenantSecretId = secretId(c, raw, 'tenantSecretId');
  const memoryMiB = c.int(raw, 'memoryMiB', 128, 10240);
  let budget: TenantBudgetConfig | undefined;
  if (raw.budget !== undefined) {
    if (!isObj(raw.budget)) c.fail('budget', 'must be a mapping');
    else {
      const b = raw.budget;
      c.unknownKeys(b, ['maxWrites', 'pageSize', 'concurrency', 'timeoutSeconds'], 'budget.');
      budget = {};
      const fields = [
        ['maxWrites', 1, 1_000_000],
        ['pageSize', 1, 10_000],
        ['concurrency', 1, 64],
        ['timeoutSeconds', 10, 900],
      ] as const;
      for (const [field, min, max] of fields) {
        const v = c.int(b, field, min, max, `budget.${field}`);
        if (v !== undefined) budget[field] = v;
      }
    }
  }
  if (name === undefined || schedule === undefined || tenantSecretId === undefined)
    return undefined;
  const tenant: TenantConfig = { name, schedule, tenantSecretId };
  if (budget !== undefined) tenant.budget = budget;
  if (memoryMiB !== undefined) tenant.memoryMiB = memoryMiB;
  return tenant;
}

/** Parses and validates the config; throws {@link TenantsConfigError} listing every problem. */
export function parseTenantsConfig(text: string, origin = 'config/tenants.yaml'): TenantsConfig {
  let doc: unknown;
  try {
    doc = parseYaml(text);
  } catch (error) {
    throw new TenantsConfigError(origin, [
      `not valid YAML: ${error instanceof Error ? error.message : String(error)}`,
    ]);
  }
  const root = new Checker('config');
  if (!isObj(doc))
    throw new TenantsConfigError(origin, ['config: must be a mapping with global and tenants']);
  root.unknownKeys(doc, ['global', 'tenants']);

  const g = new Checker('global', root.problems);
  let global: GlobalConfig | undefined;
  if (!isObj(doc.global)) root.fail('global', 'is required (a mapping with hostSecretId)');
  else {
    const raw = doc.global;
    g.unknownKeys(raw, ['hostSecretId', 'eventBusName', 'logRetentionDays', 'alarms']);
    const hostSecretId = secretId(g, raw, 'hostSecretId');
    const eventBusName =
      g.string(raw, 'eventBusName', EVENT_BUS_NAME, 'must be an EventBridge bus name', false) ??
      'tenantplane';
    if (eventBusName === 'default') g.fail('eventBusName', 'must be a custom bus, not default');
    let logRetentionDays = 30;
    if (raw.logRetentionDays !== undefined) {
      const v = raw.logRetentionDays;
      if (typeof v !== 'number' || !(LOG_RETENTION_DAYS as readonly number[]).includes(v))
        g.fail(
          'logRetentionDays',
          `must be one of ${LOG_RETENTION_DAYS.join(', ')}, got ${JSON.stringify(v)}`,
        );
      else logRetentionDays = v;
    }
    const alarms = parseAlarms(g, raw.alarms);
    if (hostSecretId !== undefined)
      global = { hostSecretId, eventBusName, logRetentionDays, alarms };
  }

  const tenants: TenantConfig[] = [];
  if (!Array.isArray(doc.tenants) || doc.tenants.length === 0)
    root.fail('tenants', 'is required (a non-empty list)');
  else {
    const seen = new Map<string, number>();
    doc.tenants.forEach((raw: unknown, index: number) => {
      const label = isObj(raw) && typeof raw.name === 'string' ? ` (${raw.name})` : '';
      const c = new Checker(`tenants[${index}]${label}`, root.problems);
      const tenant = parseTenant(c, raw);
      if (isObj(raw) && typeof raw.name === 'string') {
        const first = seen.get(raw.name);
        if (first !== undefined) c.fail('name', `duplicate of tenants[${first}]`);
        else seen.set(raw.name, index);
      }
      if (!tenant) return;
      if (tenant.tenantSecretId === global?.hostSecretId)
        c.fail('tenantSecretId', 'must not be the host secret');
      tenants.push(tenant);
    });
  }
  if (root.problems.length > 0 || global === undefined)
    throw new TenantsConfigError(origin, root.problems);
  return { global, tenants };
}

export function loadTenantsConfig(path: string): TenantsConfig {
  return parseTenantsConfig(readFileSync(path, 'utf8'), path);
}
