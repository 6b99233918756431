/**
 * The job queue. Jobs carry a task id only; the handler re-reads the task's state and is
 * safe to run twice (a second delivery of a finished task does nothing).
 */
export type JobHandler = (taskId: string) => Promise<void>;

export interface JobQueue {
  readonly kind: "in-process" | "bullmq";
  /** Adds a job for the task. Enqueuing the same id twice is harmless. */
  enqueue(taskId: string): Promise<void>;
  /** Starts consuming jobs with the handler (at most `concurrency` at once). */
  start(handler: JobHandler): void;
  /** Jobs waiting or running, for metrics and tests. */
  depth(): number;
  /** Stops taking new jobs and waits (up to graceMs) for running ones to finish. */
  close(graceMs?: number): Promise<void>;
}
