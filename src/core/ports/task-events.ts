import type { RenderProgress } from "./renderer";

/**
 * Task change notifications, for server-sent events and the task-status cache. In-process
 * by default; Redis pub/sub when several processes serve (scale-out).
 */
export interface TaskEvent {
  taskId: string;
  userId: string;
  state: "queued" | "running" | "succeeded" | "failed";
  imageUrl: string | null;
  failedReason: string | null;
  failedCode: string | null;
  /** While running, where the backend reports it (steps done, queue position). */
  progress?: RenderProgress | null;
}

export type TaskEventListener = (event: TaskEvent) => void;

export interface TaskEventBus {
  publish(event: TaskEvent): Promise<void>;
  /** Listens to every task's events; returns the unsubscribe function. */
  subscribeAll(listener: TaskEventListener): () => void;
  /** Listens to one task's events; returns the unsubscribe function. */
  subscribe(taskId: string, listener: TaskEventListener): () => void;
  close(): Promise<void>;
}
