/**
 * Decides an image's real type from its content and re-encodes it without metadata.
 * Implemented by the engine (sharp); the domain only sees this interface.
 */
export interface ImageSanitizer {
  sanitize(bytes: Uint8Array): Promise<{ bytes: Uint8Array; mime: string; width: number; height: number }>;
}

/** Thrown by an ImageSanitizer for a file it refuses; `reason` says why, for the user. */
export class ImageRefusedError extends Error {
  constructor(readonly reason: string) {
    super(reason);
  }
}
