/** What a caller says about one pass (`runPass`). */
import type { Clock, ClusterApi, DecisionSink } from '../../ports/index.js';
import type { Budget } from '../bounds/budget.js';
import type { InSyncMemo } from '../context/in-sync-memo.js';
import type { PassProgress, PathMode } from '../context/pass-context.js';

export interface PassOptions {
  tenant: string;
  tenantApi: ClusterApi;
  hostApi: ClusterApi;
  sinks?: readonly DecisionSink[];
  clock?: Clock;
  budget?: Partial<Budget>;
  /** Compute and report every Decision, write nothing (no host writes, no status, no lease). */
  dryRun?: boolean;
  passId?: string;
  onProgress?: (progress: PassProgress) => void;
  /**
   * How old `status.lastPass` may grow before a clean pass that changed nothing rewrites it
   * (default `DEFAULT_STATUS_REPORT_INTERVAL_MS`); 0 rewrites it after every pass.
   */
  statusReportIntervalMs?: number;
  /** `auto` (default) resumes where it can; `full` lists every kind in full (`--full`). */
  path?: PathMode;
  /**
   * Hold the tenant's Lease from the first write to the end, and write nothing while another pass
   * holds it (default). `false` is for embedders that serialise their passes themselves.
   */
  lease?: boolean;
  /**
   * What this process remembers of copies found in sync (`context/in-sync-memo.ts`): keep one
   * across passes (a warm function, a long-running command) and a full pass compares only what
   * changed since. Not used by a dry run.
   */
  memo?: InSyncMemo;
}
