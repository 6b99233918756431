/**
 * The job queue. Jobs carry a task id only; the handler re-reads the task's state and is
 * safe to run twice (a second delivery of a finished task does nothing).
 */
/**
 * `redelivered`: the queue hands out this job again because the worker that held it
 * stopped (its lock expired), so a task it left "running" may be taken over.
 */
export type JobHandler = (taskId: string, info: { redelivered: boolean }) => Promise<void>;

export interface JobQueue {
  readonly kind: "in-process" | "bullmq";
  /** Adds a job for the task. Enqueuing the same id twice is harmless. */
  enqueue(taskId: string): Promise<void>;
  /** Starts consuming jobs with the handler (at most `concurrency` at once). */
  start(handler: JobHandler): void;
  /** Jobs waiting or running, for metrics and readiness. */
  depth(): Promise<number>;
  /** Throws when the queue's backing service cannot be reached. */
  ping(): Promise<void>;
  /** Stops taking new jobs and waits (up to graceMs) for running ones to finish. */
  close(graceMs?: number): Promise<void>;
}
