/**
 * The sync function: one bounded convergence pass of one tenant cluster per invocation; for a
 * followed tenant whose pass found it active, followed by a follow until it is quiet or the
 * deadline comes (`follow.ts`).
 *
 * Thin by design: validate the event, load the two kubeconfigs from Secrets Manager (or reach an
 * EKS cluster with the function's role, lib/adapters/eks), build the cluster clients, run the
 * engine's pass with a deadline taken from the Lambda context, and report (decision logs,
 * Kubernetes Events, EMF metrics). Nothing of the engine lives here.
 *
 * Failures: a bad event, a missing or unusable kubeconfig, an unreachable cluster or an invalid
 * policy fail the invocation (Lambda Errors, alarm). Per-object errors do not: they are logged,
 * counted (ObjectErrors) and the pass goes on.
 */
import { randomUUID } from 'node:crypto';
import { Logger } from '@aws-lambda-powertools/logger';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { EksClusters } from '../../lib/adapters/eks/cluster.js';
import { KubernetesEventsSink } from '../../lib/adapters/events/index.js';
import { createClusterApi } from '../../lib/adapters/kube/cluster-client.js';
import { missingCrdError } from '../../lib/adapters/kube/tenant-cluster-crd.js';
import { SecretsManagerKubeconfigSource } from '../../lib/adapters/kubeconfig/secrets-manager-source.js';
import { LogSink } from '../../lib/adapters/log-sink.js';
import {
  type FollowOptions,
  type FollowResult,
  InSyncMemo,
  type PassOptions,
  runFollow,
  runPass,
} from '../../lib/engine/index.js';
import {
  type Clock,
  type ClusterApi,
  type DecisionSink,
  type KubeconfigSource,
  type KubeconfigText,
  type PassResult,
  systemClock,
} from '../../lib/ports/index.js';
import { connectClusters, type EksConnect } from './clusters.js';
import { METRICS_NAMESPACE, SERVICE_NAME, TENANT_DIMENSION } from './contract.js';
import { parseSyncEvent, TenantMismatchError } from './event.js';
import {
  firstPassPath,
  followAfterPass,
  followQuietSeconds,
  type InvocationFollow,
} from './follow.js';
import {
  objectsSeen,
  recordDroppedTick,
  recordFollow,
  recordPass,
  recordWake,
  safeError,
} from './report.js';
import { readSettings, type SyncSettings } from './settings.js';

export { KubeconfigLoadError } from './clusters.js';

/** What an invocation returns (also logged as the pass summary by the LogSink). */
export interface SyncResult {
  passId: string;
  tenant: string;
  dryRun: boolean;
  /** A full pass was asked for (`{"full": true}`). */
  full: boolean;
  complete: boolean;
  incompleteReason?: string;
  counts: PassResult['counts'];
  /** Decisions whose write failed, per action (not in `counts`). */
  failed?: PassResult['counts'];
  objectErrors: number;
  objectsSeen: number;
  durationMs: number;
  /** Set when another pass held the tenant's lease: this invocation wrote nothing. */
  leaseHeld?: PassResult['leaseHeld'];
  /** Which path the pass took (resumed, full, resync), and why a kind did not resume. */
  path?: PassResult['path'];
  pathReason?: string;
  /** A followed tenant's invocation: whether it followed after the pass, and how that went. */
  follow?: InvocationFollow;
}

export interface SyncHandlerDeps {
  /** Environment to read the settings from (default: process.env, read on first invocation). */
  env?: Record<string, string | undefined>;
  /** Kubeconfig source (default: Secrets Manager, from the settings, cached with a TTL). */
  kubeconfigSource?: (settings: SyncSettings) => KubeconfigSource;
  createClusterApi?: (kubeconfig: KubeconfigText) => ClusterApi;
  /** Clients of EKS clusters (default: DescribeCluster and a token signed from the role, per container). */
  connectEks?: EksConnect;
  runPass?: (options: PassOptions) => Promise<PassResult>;
  runFollow?: (options: FollowOptions) => Promise<FollowResult>;
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

export function createHandler(deps: SyncHandlerDeps = {}): SyncHandler {
  const logger = deps.logger ?? new Logger({ serviceName: SERVICE_NAME });
  // Metrics' own warnings (e.g. nothing to publish after a refused event) go through the
  // logger, so every line the function writes is JSON.
  // The namespace infra/ sets (a staged app has its own, `<stage>/Tenantplane`), else the default.
  const namespace =
    (deps.env ?? process.env).POWERTOOLS_METRICS_NAMESPACE?.trim() || METRICS_NAMESPACE;
  const metrics = deps.metrics ?? new Metrics({ namespace, serviceName: SERVICE_NAME, logger });
  const clock = deps.clock ?? systemClock;
  const connect = deps.createClusterApi ?? ((kubeconfig) => createClusterApi(kubeconfig));
  // Module scope in the default handler: endpoints, CAs and tokens survive warm invocations.
  const eksClusters = new EksClusters();
  const connectEks: EksConnect =
    deps.connectEks ?? ((role, cluster) => eksClusters.connect(role, cluster));
  const pass = deps.runPass ?? runPass;
  const follow = deps.runFollow ?? runFollow;
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
  // What a warm container remembers of copies found in sync: its full passes compare only what
  // changed since (lib/engine/context/in-sync-memo.ts). A cold start compares everything.
  const memo = new InSyncMemo();
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
            tenantSecretId: current.tenantSecretId ?? '',
            hostSecretId: current.hostSecretId ?? '',
            maxAgeSeconds: current.secretsMaxAgeSeconds,
          }));
    source = currentSource;
    return { settings: current, source: currentSource };
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
    // Half the safety margin bounds what follows the work (status, Events, the lease release);
    // the other half is left for the metrics flush and returning the summary before the timeout.
    budget.reportReserveMs = Math.floor(s.safetyMarginMs / 2);
    if (s.maxWrites !== undefined) budget.maxWrites = s.maxWrites;
    if (s.pageSize !== undefined) budget.pageSize = s.pageSize;
    if (s.concurrency !== undefined) budget.concurrency = s.concurrency;

    logger.info({
      message: 'pass starting',
      trigger: requested.trigger,
      wake: requested.wake,
      dryRun: requested.dryRun,
      full: requested.full,
      deadline: budget.deadline === undefined ? undefined : new Date(budget.deadline).toISOString(),
      maxWrites: budget.maxWrites,
    });

    const { tenantApi, hostApi } = await connectClusters(s, src, connect, connectEks);
    const logSink = new LogSink((line: Record<string, unknown>) => {
      const { message, ...fields } = line;
      logger.info({ message: typeof message === 'string' ? message : 'tenantplane', ...fields });
    });
    // runPass bounds every request (its failure report's included) by the deadline plus that
    // reserve, and holds the tenant's lease: one pass per tenant, a laptop's `tenantplane sync`
    // included.
    const passOptions: PassOptions = {
      tenant: s.tenant,
      tenantApi,
      hostApi,
      sinks: [logSink, ...createSinks(hostApi, s.tenant)],
      clock,
      budget,
      dryRun: requested.dryRun,
      // {"full": true}, or woken: every kind listed in full on both sides (follow.ts says why).
      path: firstPassPath(requested),
      passId,
      memo,
    };
    // A host without the CRD answers "not found" for the TenantCluster: say the CRD is missing.
    const crdAware = async <T>(work: Promise<T>): Promise<T> => {
      try {
        return await work;
      } catch (error) {
        throw (await missingCrdError(hostApi, error)) ?? error;
      }
    };
    const result = await crdAware(pass(passOptions));
    recordPass(metrics, logger, result);
    recordDroppedTick(metrics, logger, result.leaseHeld);
    recordWake(metrics, requested.wake);
    let followed: InvocationFollow | undefined;
    const quietSeconds = followQuietSeconds(s.followQuietSeconds, requested.wake);
    if (quietSeconds !== undefined) {
      const untilMs = budget.deadline;
      followed = await followAfterPass({
        quietSeconds,
        woken: requested.wake,
        dryRun: requested.dryRun,
        pass: result,
        ...(untilMs === undefined ? {} : { untilMs }),
        now: clock.now(),
        passOptions,
        run: (options) => crdAware(follow(options)),
        // Each pass's metrics and object errors as it ends; its Decisions reach the logs and
        // Events through the sinks, as any pass's do.
        onPass: (each) => recordPass(metrics, logger, each),
      });
      recordFollow(metrics, logger, followed);
    }

    const summary: SyncResult = {
      passId: result.passId,
      tenant: result.tenant,
      dryRun: result.dryRun,
      full: requested.full,
      complete: result.complete,
      counts: result.counts,
      ...(result.failed ? { failed: result.failed } : {}),
      objectErrors: result.errors.length,
      objectsSeen: objectsSeen(result),
      durationMs: result.durationMs,
    };
    if (result.incompleteReason !== undefined) summary.incompleteReason = result.incompleteReason;
    // Another pass (a laptop's `tenantplane sync`) held the tenant's lease: a clean no-op.
    if (result.leaseHeld) summary.leaseHeld = result.leaseHeld;
    if (result.path !== undefined) summary.path = result.path;
    if (result.pathReason !== undefined) summary.pathReason = result.pathReason;
    if (followed) summary.follow = followed;
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
