/**
 * Trajectory analysis (DeployBench §5 as a product feature): each script a run executed is split into its
 * sub-commands on top-level `&&`, `||`, `;` and `|`; each sub-command gets a phase; the recovery after each
 * failed turn is classified; self-stops (the strategy's finish claims) are counted with whether the verifier
 * agreed. Per run this is `analysis` in result.json and a RUNBOOK section; per suite the leaderboard sums it.
 *
 * The shape below is the contract the bench leaderboard reads; the implementation fills it.
 */

export const PHASES = ['inspect', 'install', 'configure', 'build', 'patch', 'test', 'other'] as const;
export type Phase = (typeof PHASES)[number];

export const RECOVERIES = ['inspect', 'adapt', 'loop', 'abort', 'other'] as const;
export type Recovery = (typeof RECOVERIES)[number];

export interface TrajectoryAnalysis {
  /** Sub-commands over all turns. */
  commands: number;
  /** Sub-commands per phase (every phase present, zero when none). */
  phases: Record<Phase, number>;
  /** Turns that failed (non-zero exit or timed out). */
  failures: number;
  /** What followed each failed turn (every kind present, zero when none). */
  recoveries: Record<Recovery, number>;
  /** Finish claims the strategy made, and how many the verifier accepted or refused. */
  selfStops: { count: number; correct: number; wrong: number };
}
