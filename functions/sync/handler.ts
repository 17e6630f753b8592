/**
 * The sync function: one bounded convergence pass of one tenant cluster per invocation.
 *
 * Thin by design: validate the event, load the two kubeconfigs from Secrets Manager, build the
 * cluster clients, run the engine's pass with a deadline taken from the Lambda context, and
 * report (decision logs, Kubernetes Events, EMF metrics). Nothing of the engine lives here.
 *
 * Failures: a bad event, a missing or unusable kubeconfig, an unreachable cluster or an invalid
 * policy fail the invocation (Lambda Errors, alarm). Per-object errors do not: they are logged,
 * counted (ObjectErrors) and the pass goes on.
 */
import { randomUUID } from 'node:crypto';
import { Logger } from '@aws-lambda-powertools/logger';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { KubernetesEventsSink } from '../../lib/adapters/events-sink.js';
import { createClusterApi } from '../../lib/adapters/kube/cluster-client.js';
import { KubeconfigError } from '../../lib/adapters/kube/kubeconfig-error.js';
import { SecretsManagerKubeconfigSource } from '../../lib/adapters/kubeconfig/secrets-manager-source.js';
import { KubeconfigSourceError } from '../../lib/adapters/kubeconfig/source-error.js';
import { LogSink } from '../../lib/adapters/log-sink.js';
import { type PassOptions, runPass } from '../../lib/engine/index.js';
import {
  type Clock,
  type ClusterApi,
  type ClusterRole,
  type DecisionSink,
  type KubeconfigSource,
  type KubeconfigText,
  type PassResult,
  systemClock,
} from '../../lib/ports/index.js';
import { METRICS_NAMESPACE, SERVICE_NAME, SyncMetric, TENANT_DIMENSION } from './contract.js';
import { parseSyncEvent, TenantMismatchError } from './event.js';
import { readSettings, type SyncSettings } from './settings.js';

/** A kubeconfig could not be loaded or used. Names the role and the secret, never the content. */
export class KubeconfigLoadError extends Error {
  readonly role: ClusterRole;
  readonly secretId: string;
  constructor(role: ClusterRole, secretId: string, problem: string) {
    super(`${role} kubeconfig from secret ${secretId}: ${problem}`);
    this.name = 'KubeconfigLoadError';
    this.role = role;
    this.secretId = secretId;
  }
}

/** What an invocation returns (also logged as the pass summary by the LogSink). */
export interface SyncResult {
  passId: string;
  tenant: string;
  dryRun: boolean;
  complete: boolean;
  incompleteReason?: string;
  counts: PassResult['counts'];
  objectErrors: number;
  objectsSeen: number;
  durationMs: number;
}

export interface SyncHandlerDeps {
  /** Environment to read the settings from (default: process.env, read on first invocation). */
  env?: Record<string, string | undefined>;
  /** Kubeconfig source (default: Secrets Manager, from the settings, cached with a TTL). */
  kubeconfigSource?: (settings: SyncSettings) => KubeconfigSource;
  createClusterApi?: (kubeconfig: KubeconfigText) => ClusterApi;
  runPass?: (options: PassOptions) => Promise<PassResult>;
  /** Extra sinks after the LogSink (default: the Kubernetes Events sink on the host). */
  createSinks?: (hostApi: ClusterApi, tenant: string) => DecisionSink[];
  logger?: Logger;
  metrics?: Metrics;
  clock?: Clock;
  newPassId?: () => string;
}

export type SyncHandler = ((event: unknown, context: Context) => Promise<SyncResult>) & {
  logger: Logger;
  metrics: Metrics;
};

const ROLES: ClusterRole[] = ['tenant', 'host'];

/** The error, safe to log: name and message only (no `cause` chain: a cause may quote input). */
function safeError(error: unknown): Error {
  if (!(error instanceof Error)) return new Error(`non-error thrown: ${typeof error}`);
  const safe = new Error(error.message);
  safe.name = error.name;
  const frames = (error.stack ?? '').split('\n').filter((line) => line.startsWith('    at '));
  safe.stack = [`${error.name}: ${error.message}`, ...frames].join('\n');
  return safe;
}

/** What a source failure says, without the source's own "<role> kubeconfig <origin>: " prefix. */
function sourceProblem(error: unknown): string {
  if (error instanceof KubeconfigSourceError) {
    const prefix = `${error.role} kubeconfig ${error.origin}: `;
    return error.message.startsWith(prefix) ? error.message.slice(prefix.length) : error.message;
  }
  return error instanceof Error ? error.message : String(error);
}

function secretIdOf(settings: SyncSettings, role: ClusterRole): string {
  return role === 'tenant' ? settings.tenantSecretId : settings.hostSecretId;
}

export function createHandler(deps: SyncHandlerDeps = {}): SyncHandler {
  const logger = deps.logger ?? new Logger({ serviceName: SERVICE_NAME });
  // Metrics' own warnings (e.g. nothing to publish after a refused event) go through the
  // logger, so every line the function writes is JSON.
  const metrics =
    deps.metrics ??
    new Metrics({ namespace: METRICS_NAMESPACE, serviceName: SERVICE_NAME, logger });
  const clock = deps.clock ?? systemClock;
  const connect = deps.createClusterApi ?? ((kubeconfig) => createClusterApi(kubeconfig));
  const pass = deps.runPass ?? runPass;
  const newPassId = deps.newPassId ?? randomUUID;
  const createSinks =
    deps.createSinks ??
    ((hostApi, tenant) => [
      new KubernetesEventsSink({
        hostApi,
        tenant,
        clock,
        // An Event that could not be written is logged; the pass and the invocation go on.
        onError: (error) =>
          logger.warn({ message: 'event write failed', error: safeError(error).message }),
      }),
    ]);

  // Module scope in the default handler: survives warm invocations (the source caches secrets).
  let settings: SyncSettings | undefined;
  let source: KubeconfigSource | undefined;

  function configure(): { settings: SyncSettings; source: KubeconfigSource } {
    const current = settings ?? readSettings(deps.env ?? process.env);
    if (!settings) {
      settings = current;
      // One dimension, `tenant`: drop Powertools' default `service` so alarms can match exactly.
      metrics.clearDefaultDimensions();
      metrics.setDefaultDimensions({ [TENANT_DIMENSION]: current.tenant });
    }
    const currentSource =
      source ??
      (deps.kubeconfigSource
        ? deps.kubeconfigSource(current)
        : new SecretsManagerKubeconfigSource({
            tenantSecretId: current.tenantSecretId,
            hostSecretId: current.hostSecretId,
            maxAgeSeconds: current.secretsMaxAgeSeconds,
          }));
    source = currentSource;
    return { settings: current, source: currentSource };
  }

  async function connectAll(
    s: SyncSettings,
    src: KubeconfigSource,
  ): Promise<{ tenantApi: ClusterApi; hostApi: ClusterApi }> {
    const apis: ClusterApi[] = [];
    for (const role of ROLES) {
      const secretId = secretIdOf(s, role);
      let kubeconfig: KubeconfigText;
      try {
        kubeconfig = await src.load(role);
      } catch (error) {
        throw new KubeconfigLoadError(role, secretId, sourceProblem(error));
      }
      try {
        apis.push(connect(kubeconfig));
      } catch (error) {
        const problem =
          error instanceof KubeconfigError
            ? error.problem
            : error instanceof Error
              ? error.message
              : String(error);
        throw new KubeconfigLoadError(role, secretId, problem);
      }
    }
    return { tenantApi: apis[0]!, hostApi: apis[1]! };
  }

  function record(result: PassResult): void {
    const { counts } = result;
    metrics.addMetric(SyncMetric.Creates, MetricUnit.Count, counts.Create);
    metrics.addMetric(SyncMetric.Updates, MetricUnit.Count, counts.Update);
    metrics.addMetric(SyncMetric.Deletes, MetricUnit.Count, counts.Delete);
    metrics.addMetric(SyncMetric.Skips, MetricUnit.Count, counts.Skip);
    metrics.addMetric(SyncMetric.ObjectErrors, MetricUnit.Count, result.errors.length);
    metrics.addMetric(
      SyncMetric.ObjectsSeen,
      MetricUnit.Count,
      Object.values(result.objectsSeen).reduce((a, b) => a + b, 0),
    );
    metrics.addMetric(SyncMetric.PassDurationMs, MetricUnit.Milliseconds, result.durationMs);
    metrics.addMetric(SyncMetric.PassComplete, MetricUnit.Count, result.complete ? 1 : 0);
    metrics.addMetric(SyncMetric.PassIncomplete, MetricUnit.Count, result.complete ? 0 : 1);
    for (const error of result.errors) {
      logger.warn({
        message: 'object error',
        kind: error.kind,
        tenantNamespace: error.tenantRef?.namespace,
        tenantName: error.tenantRef?.name,
        hostNamespace: error.hostRef?.namespace,
        hostName: error.hostRef?.name,
        reason: error.reason,
        error: error.message,
      });
    }
  }

  async function sync(event: unknown, context: Context): Promise<SyncResult> {
    const { settings: s, source: src } = configure();
    const requested = parseSyncEvent(event);
    if (requested.tenant !== s.tenant) throw new TenantMismatchError(s.tenant, requested.tenant);

    const passId = newPassId();
    logger.setCorrelationId(passId);
    logger.appendKeys({ tenant: s.tenant, passId });

    const remaining =
      typeof context?.getRemainingTimeInMillis === 'function'
        ? context.getRemainingTimeInMillis()
        : undefined;
    const budget: PassOptions['budget'] = {};
    if (remaining !== undefined) budget.deadline = clock.now() + remaining - s.safetyMarginMs;
    if (s.maxWrites !== undefined) budget.maxWrites = s.maxWrites;
    if (s.pageSize !== undefined) budget.pageSize = s.pageSize;
    if (s.concurrency !== undefined) budget.concurrency = s.concurrency;

    logger.info({
      message: 'pass starting',
      trigger: requested.trigger,
      dryRun: requested.dryRun,
      deadline: budget.deadline === undefined ? undefined : new Date(budget.deadline).toISOString(),
      maxWrites: budget.maxWrites,
    });

    const { tenantApi, hostApi } = await connectAll(s, src);
    const logSink = new LogSink((line: Record<string, unknown>) => {
      const { message, ...fields } = line;
      logger.info({ message: typeof message === 'string' ? message : 'tenantplane', ...fields });
    });
    const result = await pass({
      tenant: s.tenant,
      tenantApi,
      hostApi,
      sinks: [logSink, ...createSinks(hostApi, s.tenant)],
      clock,
      budget,
      dryRun: requested.dryRun,
      passId,
    });
    record(result);

    const summary: SyncResult = {
      passId: result.passId,
      tenant: result.tenant,
      dryRun: result.dryRun,
      complete: result.complete,
      counts: result.counts,
      objectErrors: result.errors.length,
      objectsSeen: Object.values(result.objectsSeen).reduce((a, b) => a + b, 0),
      durationMs: result.durationMs,
    };
    if (result.incompleteReason !== undefined) summary.incompleteReason = result.incompleteReason;
    return summary;
  }

  const handler = middy(sync)
    .use(injectLambdaContext(logger, { resetKeys: true }))
    .use(logMetrics(metrics, { throwOnEmptyMetrics: false }))
    .use({
      // The one error handler: log what failed (never secret material) and fail the invocation.
      onError: async (request) => {
        const safe = safeError(request.error);
        logger.error({ message: 'sync failed', errorName: safe.name }, safe);
        request.error = safe;
      },
    }) as unknown as SyncHandler;
  handler.logger = logger;
  handler.metrics = metrics;
  return handler;
}

export const handler = createHandler();
