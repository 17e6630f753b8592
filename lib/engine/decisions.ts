/**
 * Recording Decisions during a pass: counts, ordered list, and delivery to sinks as each is made.
 */
import type {
  Decision,
  DecisionAction,
  DecisionCounts,
  DecisionSink,
  PassResult,
} from '../ports/index.js';

/** Zero for every action. */
export function emptyCounts(): DecisionCounts {
  return { Create: 0, Update: 0, Delete: 0, Skip: 0 };
}

/**
 * Accumulates decisions and streams each to the sinks at once. A sink that throws is contained:
 * delivery is best effort and never aborts the pass.
 */
export class DecisionRecorder {
  readonly decisions: Decision[] = [];
  readonly counts: DecisionCounts = emptyCounts();
  private readonly sinks: readonly DecisionSink[];
  private readonly onSinkError: (error: unknown) => void;

  constructor(sinks: readonly DecisionSink[], onSinkError: (error: unknown) => void = () => {}) {
    this.sinks = sinks;
    this.onSinkError = onSinkError;
  }

  /** Records a decision and delivers it. */
  record(decision: Decision): void {
    this.decisions.push(decision);
    this.counts[decision.action satisfies DecisionAction] += 1;
    for (const sink of this.sinks) {
      try {
        sink.decision(decision);
      } catch (error) {
        this.onSinkError(error);
      }
    }
  }

  /** Calls every sink's `passFinished`, containing failures. */
  async finish(result: PassResult): Promise<void> {
    await Promise.all(
      this.sinks.map(async (sink) => {
        try {
          await sink.passFinished(result);
        } catch (error) {
          this.onSinkError(error);
        }
      }),
    );
  }
}
