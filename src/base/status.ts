/** The closed set of outcomes of a run (SWE-agent style exit statuses). */
export const RUN_STATUSES = [
  'success',
  'partial',
  'failed',
  'limits_exceeded',
  'stuck',
  'stalled',
  'sandbox_error',
  'provider_error',
  'cancelled',
] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];
