/**
 * Recording Decisions during a pass: counts, ordered list, and delivery to sinks as each is made.
 * The counts are honest: a Decision whose write failed is counted in `failed`, a delete that found
 * its object gone in `alreadyGone`, and only what was carried out in `counts`.
 */
import type {
  Decision,
  DecisionAction,
  DecisionCounts,
  DecisionSink,
  PassResult,
} from '../../ports/index.js';

/** Zero for every action. */
export function emptyCounts(): DecisionCounts {
  return { Create: 0, Update: 0, Delete: 0, Skip: 0 };
}

/** Hands `decision` to every sink; a sink that throws never stops the others, nor the pass. */
export function deliver(sinks: readonly DecisionSink[], decision: Decision): void {
  for (const sink of sinks) {
    try {
      sink.decision(decision);
    } catch {
      // Delivery is best effort: a sink never fails the pass.
    }
  }
}

/**
 * Accumulates decisions and streams each to the sinks at once. A sink that throws is contained:
 * delivery is best effort and never aborts the pass.
 */
export class DecisionRecorder {
  readonly decisions: Decision[] = [];
  /** Decisions carried out (dry runs: that would be carried out), per action. */
  readonly counts: DecisionCounts = emptyCounts();
  /** Decisions whose write failed, per action. */
  readonly failed: DecisionCounts = emptyCounts();
  /** Deletes that found their object already gone. */
  alreadyGone = 0;
  /**
   * Decisions a full pass of the same state would make again: Skips (they persist), and writes
   * the host stored otherwise than written (the next full pass records that). A kind with any
   * keeps no resume point (`pipeline/kind-path.ts`).
   */
  unsettled = 0;
  constructor(private readonly sinks: readonly DecisionSink[]) {}

  /** Records a decision and delivers it. */
  record(decision: Decision): void {
    this.decisions.push(decision);
    const action: DecisionAction = decision.action;
    if (decision.error !== undefined) this.failed[action] += 1;
    else if (decision.alreadyGone === true) this.alreadyGone += 1;
    else this.counts[action] += 1;
    if (action === 'Skip') this.unsettled += 1;
    deliver(this.sinks, decision);
  }

  /** The pass result's counts: `counts`, `failed` and `alreadyGone`. */
  tally(): Pick<PassResult, 'counts' | 'failed' | 'alreadyGone'> {
    return {
      counts: { ...this.counts },
      failed: { ...this.failed },
      alreadyGone: this.alreadyGone,
    };
  }

  /** Calls every sink's `passFinished`, containing failures. */
  finish(result: PassResult): Promise<void> {
    return finishSinks(this.sinks, result);
  }
}

/** Tells every sink the pass ended; a sink that fails never stops the others, nor the pass. */
export async function finishSinks(
  sinks: readonly DecisionSink[],
  result: PassResult,
): Promise<void> {
  await Promise.all(
    sinks.map(async (sink) => {
      try {
        await sink.passFinished(result);
      } catch {
        // Delivery is best effort: a sink never fails the pass.
      }
    }),
  );
}
