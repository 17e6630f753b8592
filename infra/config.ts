/**
 * The tenants config (`config/tenants.yaml`): which tenant clusters get a sync function, on what
 * schedule, with which secrets and budget. Validated up front; every problem is reported with the
 * tenant and the field it is about, all at once.
 */
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { isRecord, tenantNameProblem } from '../lib/common/index.js';
import {
  alarmsSchema,
  eksSchema,
  hint,
  int,
  judged,
  kmsKeyArnSchema,
  logLevelSchema,
  mapping,
  stageSchema,
  stringWhere,
  vpcSchema,
} from './config-fields.js';
import {
  clusterAccessProblems,
  crossTenantProblems,
  followProblems,
  type Problem,
  tenantLabel,
} from './config-rules.js';
import { globalWakeSchema, resolveWake, tenantWakeSchema, wakeProblems } from './config-wake.js';
import { fleetProblems } from './fleet-rules.js';

/** CloudWatch Logs accepts only these retention periods. */
export const LOG_RETENTION_DAYS = [
  1, 3, 5, 7, 14, 30, 60, 90, 120, 150, 180, 365, 400, 545, 731, 1096, 1827, 2192, 2557, 2922, 3288,
  3653,
] as const;

/** The longest quiet a follow may wait for: under the longest function timeout (900 s). */
export const MAX_FOLLOW_QUIET_SECONDS = 600;

const RATE = /^rate\((\d+) (minute|minutes|hour|hours|day|days)\)$/;

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

const secretId = stringWhere(
  (v) =>
    /^[A-Za-z0-9/_+=.@-]{1,512}$/.test(v) ||
    /^arn:aws[a-z-]*:secretsmanager:[a-z0-9-]+:\d{12}:secret:[A-Za-z0-9/_+=.@-]+$/.test(v),
  'must be a Secrets Manager secret name or ARN',
);

const tenantSchema = mapping(
  {
    /** The TenantCluster name, and a label value on every host object: a DNS-1123 label. */
    name: judged(tenantNameProblem),
    /** An EventBridge Scheduler expression: `rate(5 minutes)` or `cron(0/10 * * * ? *)`. */
    schedule: judged((s) => scheduleProblem(s.trim())).transform((s) => s.trim()),
    /** Secrets Manager secret (name or ARN) with the tenant cluster's kubeconfig. */
    tenantSecretId: secretId.optional(),
    /** Or: the tenant cluster is on EKS, reached with the function's IAM role. */
    tenantEks: eksSchema.optional(),
    /**
     * Secrets Manager secret (name or ARN) with this tenant's own host kubeconfig: the identity
     * `deploy/rbac/` grants rights in this tenant's host namespace only. Never shared.
     */
    hostSecretId: secretId.optional(),
    /** Or: the host is on EKS, reached with the function's IAM role (one of the two is required). */
    hostEks: eksSchema.optional(),
    memoryMiB: int(128, 10240).optional(),
    budget: mapping(
      {
        maxWrites: int(1, 1_000_000).optional(),
        pageSize: int(1, 10_000).optional(),
        concurrency: int(1, 64).optional(),
        /** The function timeout; the pass deadline is derived from it at run time. */
        timeoutSeconds: int(10, 900).optional(),
      },
      'must be a mapping',
    ).optional(),
    /**
     * Follow mode (docs/follow-mode.md): an invocation whose pass converged something keeps
     * following the tenant until `quietSeconds` pass without a change, or its deadline. A
     * `quietSeconds` shorter than the function timeout, checked with the timeout below.
     */
    follow: mapping(
      { quietSeconds: int(1, MAX_FOLLOW_QUIET_SECONDS) },
      'must be a mapping with quietSeconds (e.g. {quietSeconds: 30})',
    ).optional(),
    /** This tenant's VPC, replacing `global.vpc` (e.g. its own API server's subnets). */
    vpc: vpcSchema.optional(),
    /** The KMS key of this tenant's secrets, replacing `global.kmsKeyArn`. */
    kmsKeyArn: kmsKeyArnSchema.optional(),
    /**
     * The heartbeat period, for a schedule whose gap it cannot tell (a cron on some days only):
     * `alarms.heartbeatPeriods` of them must cover its longest gap.
     */
    heartbeatMinutes: int(1, 10_080).optional(),
    /** Woken by its apiserver's audit webhook (docs/wake.md): `{}`, `{scheduleMinutes}`, `false`. */
    wake: tenantWakeSchema.optional(),
  },
  'must be a mapping with name, schedule, tenantSecretId and hostSecretId',
  // The order the fields are written in; the shape's order is the order problems are reported.
  [
    'name',
    'schedule',
    'tenantSecretId',
    'tenantEks',
    'hostSecretId',
    'hostEks',
    'budget',
    'memoryMiB',
    'follow',
    'vpc',
    'kmsKeyArn',
    'heartbeatMinutes',
    'wake',
  ],
);

const retentionHint = hint(`must be one of ${LOG_RETENTION_DAYS.join(', ')}`);

/** The one host secret of every tenant was `global.hostSecretId`: say where it went. */
const MOVED_HOST_SECRET =
  'moved: give each tenant its own host secret as tenants[].hostSecretId (one host identity per tenant, see deploy/rbac/)';

const globalSchema = mapping(
  {
    hostSecretId: z.undefined({ error: MOVED_HOST_SECRET }).optional(),
    eventBusName: stringWhere(
      (v) => /^[A-Za-z0-9._-]{1,256}$/.test(v),
      'must be an EventBridge bus name',
    )
      .refine((v) => v !== 'default', 'must be a custom bus, not default')
      .default('tenantplane'),
    logRetentionDays: z
      .number(retentionHint)
      .refine((v) => (LOG_RETENTION_DAYS as readonly number[]).includes(v), retentionHint)
      .default(30),
    alarms: alarmsSchema.prefault({}),
    /** Prefixes every name (functions, log groups, alarms, stacks, bus, topic, metrics). */
    stage: stageSchema.optional(),
    /** Every function runs in this VPC unless its tenant names its own. */
    vpc: vpcSchema.optional(),
    /** The KMS key of the secrets (each function may decrypt with it through Secrets Manager). */
    kmsKeyArn: kmsKeyArnSchema.optional(),
    /** The functions' log level (Powertools Logger); default INFO. */
    logLevel: logLevelSchema.optional(),
    /**
     * Concurrent executions the account lets these functions reserve (1 per tenant): its
     * concurrency quota minus the 100 Lambda keeps unreserved. Default 900 (a 1,000 quota).
     */
    maxReservedConcurrency: int(1, 1_000_000).default(900),
    /** Flexible window of every schedule, minutes (0: fire on time); default from the schedule. */
    scheduleWindowMinutes: int(0, 60).optional(),
    /** Wake every tenant (docs/wake.md), with these defaults; `tenants[].wake: false` opts out. */
    wake: globalWakeSchema.optional(),
  },
  'must be a mapping',
  [
    'stage',
    'eventBusName',
    'logRetentionDays',
    'logLevel',
    'alarms',
    'vpc',
    'kmsKeyArn',
    'maxReservedConcurrency',
    'scheduleWindowMinutes',
    'wake',
  ],
).prefault({});

const configSchema = mapping(
  {
    global: globalSchema,
    tenants: z
      .array(tenantSchema, { error: 'is required (a non-empty list)' })
      .min(1, { error: 'is required (a non-empty list)' }),
  },
  'must be a mapping with global and tenants',
);

// The types follow the schemas, so a field cannot be validated one way and typed another.
export type TenantConfig = z.output<typeof tenantSchema>;
export type EksClusterConfig = z.output<typeof eksSchema>;
export type TenantBudgetConfig = NonNullable<TenantConfig['budget']>;
export type AlarmsConfig = z.output<typeof alarmsSchema>;
export type GlobalConfig = z.output<typeof globalSchema>;
export type TenantsConfig = z.output<typeof configSchema>;

export const DEFAULT_ALARMS: AlarmsConfig = alarmsSchema.parse({});

/** The config is invalid; `problems` has one line per problem, naming the tenant and field. */
export class TenantsConfigError extends Error {
  readonly problems: string[];
  constructor(origin: string, problems: string[]) {
    super(`invalid tenants config ${origin}:\n  - ${problems.join('\n  - ')}`);
    this.name = 'TenantsConfigError';
    this.problems = problems;
  }
}

/** The tenant a problem is about, so each tenant's problems read together; -1 for the rest. */
const tenantIndex = ({ path }: Problem) =>
  path[0] === 'tenants' && typeof path[1] === 'number' ? path[1] : -1;

/** `tenants[2] (qa): budget.maxWrites: ...`, `global: eventBusName: ...`, `config: tenants: ...` */
function describeProblem(doc: unknown, problem: Problem): string {
  const { path, message } = problem;
  const index = tenantIndex(problem);
  if (index >= 0) {
    const raw = isRecord(doc) && Array.isArray(doc.tenants) ? doc.tenants[index] : undefined;
    return `${tenantLabel(raw, index)}: ${path.slice(2).join('.') || '(entry)'}: ${message}`;
  }
  if (path[0] === 'global' && path.length > 1)
    return `global: ${path.slice(1).join('.')}: ${message}`;
  return ['config', path.join('.'), message].filter(Boolean).join(': ');
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
  const result = configSchema.safeParse(doc);
  const problems: Problem[] = (result.error?.issues ?? []).flatMap((issue) =>
    issue.code === 'unrecognized_keys'
      ? issue.keys.map((key) => ({ path: [...issue.path, key], message: issue.message }))
      : [issue],
  );
  problems.push(...clusterAccessProblems(doc), ...crossTenantProblems(doc), ...followProblems(doc));
  // Wake resolved first: its schedule is the one the fleet rules and the constructs read.
  const data = result.success ? resolveWake(result.data) : undefined;
  if (data) problems.push(...fleetProblems(data), ...wakeProblems(data));
  if (data && problems.length === 0) return data;
  // Array sort is stable, so one tenant's problems keep the order its fields are checked in.
  problems.sort((a, b) => tenantIndex(a) - tenantIndex(b));
  throw new TenantsConfigError(
    origin,
    problems.map((problem) => describeProblem(doc, problem)),
  );
}
