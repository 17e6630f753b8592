/**
 * The building blocks of the tenants config schema (infra/config.ts), and the fields that run a
 * fleet in a real account: VPC, KMS key, log level, stage and alarm e-mails.
 */
import { z } from 'zod';
import { isRecord } from '../lib/common/index.js';

// Every schema carries its own wording, so no zod default ("Invalid input: expected string,
// received number") reaches the operator; the issue path supplies the tenant and the field.

/** `is required` when the field is missing, else `<text>, got <the value>`. */
export const hint = (text: string) => ({
  error: (issue: { input?: unknown }) =>
    issue.input === undefined ? 'is required' : `${text}, got ${JSON.stringify(issue.input)}`,
});

/** A string that `ok` accepts; anything else is refused as not being `what`. */
export const stringWhere = (ok: (value: string) => boolean, what: string) =>
  z.string(hint(what)).refine(ok, hint(what));

export const int = (min: number, max: number) => {
  const h = hint(`must be an integer from ${min} to ${max}`);
  return z.number(h).refine((v) => Number.isInteger(v) && v >= min && v <= max, h);
};

/** A string judged by a function that says what is wrong with it, like `scheduleProblem`. */
export const judged = (problem: (value: string) => string | undefined) =>
  z
    .string(hint('must be a string'))
    .refine((v) => problem(v) === undefined, { error: (issue) => problem(issue.input as string) });

/** A mapping with exactly these keys, listed in `known` order when an unknown one turns up. */
export function mapping<S extends z.ZodRawShape>(
  shape: S,
  what: string,
  known = Object.keys(shape),
) {
  return z.strictObject(shape, {
    error: (issue) =>
      issue.code === 'unrecognized_keys' ? `unknown field (known: ${known.join(', ')})` : what,
  });
}

/** A non-empty list of distinct strings, each accepted by `ok`. */
const listOf = (ok: (value: string) => boolean, what: string) =>
  z
    .array(stringWhere(ok, what), hint(`must be a list (each ${what.replace(/^must be /, '')})`))
    .min(1, { error: 'must not be empty' })
    .refine((v) => new Set(v).size === v.length, { error: 'must not repeat an entry' });

/**
 * The VPC the functions run in: existing subnets and security groups, by id (the subnets private,
 * with the endpoints or NAT of docs/deploy-on-aws.md). Global, or a tenant's own.
 */
export const vpcSchema = mapping(
  {
    subnetIds: listOf((v) => /^subnet-[0-9a-f]{8,17}$/.test(v), 'must be a subnet id (subnet-…)'),
    securityGroupIds: listOf(
      (v) => /^sg-[0-9a-f]{8,17}$/.test(v),
      'must be a security group id (sg-…)',
    ),
  },
  'must be a mapping with subnetIds and securityGroupIds',
);

/** The customer managed KMS key that encrypts the kubeconfig secrets. */
export const kmsKeyArnSchema = stringWhere(
  (v) => /^arn:aws[a-z-]*:kms:[a-z0-9-]+:\d{12}:key\/[A-Za-z0-9-]+$/.test(v),
  'must be a KMS key ARN (arn:aws:kms:<region>:<account>:key/<id>)',
);

/** The levels the function logs at (Powertools Logger); below INFO no decision line is written. */
export const LOG_LEVELS = ['DEBUG', 'INFO', 'WARN', 'ERROR'] as const;

export const logLevelSchema = stringWhere(
  (v) => (LOG_LEVELS as readonly string[]).includes(v),
  `must be one of ${LOG_LEVELS.join(', ')}`,
) as z.ZodType<(typeof LOG_LEVELS)[number]>;

/** The longest stage: it prefixes function names, which Lambda caps at 64 characters. */
export const MAX_STAGE_LENGTH = 16;

/** A stage (`prod`, `staging`): prefixes every name, so two stages share an account and region. */
export const stageSchema = stringWhere(
  (v) => v.length <= MAX_STAGE_LENGTH && /^[a-z][a-z0-9]*(-[a-z0-9]+)*$/.test(v),
  `must be a lowercase name of up to ${MAX_STAGE_LENGTH} letters, digits and single hyphens, starting with a letter (e.g. prod)`,
);

/** Addresses subscribed to the alarm topic (each confirms the subscription by e-mail). */
export const emailsSchema = listOf(
  (v) => /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(v),
  'must be an e-mail address',
);

/**
 * An EKS cluster reached with the function's own IAM role (docs/eks.md): the stack makes its
 * access entry, so it is in the stack's account, and in its region.
 */
export const eksSchema = mapping(
  {
    clusterName: stringWhere(
      (v) => /^[0-9A-Za-z][A-Za-z0-9_-]{0,99}$/.test(v),
      'must be an EKS cluster name',
    ),
    region: stringWhere((v) => /^[a-z]{2}(-[a-z]+)+-\d+$/.test(v), 'must be an AWS region'),
  },
  'must be a mapping with clusterName and region',
);

/** The alarms of every tenant and where they go (`global.alarms`). */
export const alarmsSchema = mapping(
  {
    periodMinutes: int(1, 1440).default(5),
    evaluationPeriods: int(1, 100).default(1),
    failedInvocationsThreshold: int(1, 100_000).default(1),
    incompletePassesThreshold: int(1, 100_000).default(3),
    skipsThreshold: int(1, 1_000_000).default(1),
    /** Throttles in a period (a tenant's passes outlasting its schedule) that raise the alarm. */
    throttlesThreshold: int(1, 100_000).default(3),
    /**
     * The heartbeat: a tenant with no completed pass in this many of its heartbeat periods
     * (docs/operations.md) raises its alarm. At least 3, so a late tick is no alarm.
     */
    heartbeatPeriods: int(3, 100).default(3),
    /** Create an SNS topic of this name in the shared stack and notify it. */
    topicName: stringWhere(
      (v) => /^[A-Za-z0-9_-]{1,256}$/.test(v),
      'must be an SNS topic name',
    ).optional(),
    /** Or notify an existing topic. */
    topicArn: stringWhere(
      (v) => /^arn:aws[a-z-]*:sns:[a-z0-9-]+:\d{12}:[A-Za-z0-9_-]+$/.test(v),
      'must be an SNS topic ARN',
    ).optional(),
    /** Subscribed to the topic (topicName's, else topicArn's; else a topic `tenantplane-alarms`). */
    emails: emailsSchema.optional(),
  },
  'must be a mapping',
).refine((a) => a.topicName === undefined || a.topicArn === undefined, {
  error: 'set topicName (create a topic) or topicArn (use one), not both',
  // Asked even when another alarm field is wrong, so the operator sees every problem at once.
  when: (payload) => isRecord(payload.value),
});
