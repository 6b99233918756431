/**
 * Object storage for uploaded originals and generated images. Keys are random and
 * opaque; nothing in storage is public: files are served through our own route.
 */
export interface ObjectStorage {
  readonly kind: "local" | "s3";
  put(key: string, bytes: Uint8Array, contentType: string): Promise<void>;
  /** Returns the bytes, or null when the object does not exist. */
  get(key: string): Promise<Buffer | null>;
  /** Deletes the object; deleting a missing object is not an error. */
  delete(key: string): Promise<void>;
  exists(key: string): Promise<boolean>;
  /** A short-lived URL to read the object directly, where the storage supports it (S3). */
  presign?(key: string, contentType: string, ttlSeconds: number): Promise<string>;
  /** Throws when the storage cannot be reached. */
  ping(): Promise<void>;
}
