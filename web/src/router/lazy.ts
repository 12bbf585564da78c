/** Lazy page loading with the spec's chunk-load time-out (§8, §9: 120 s). */
export const chunkLoadTimeout = 120_000

export class ChunkLoadError extends Error {
  constructor(message: string, cause?: unknown) {
    super(message, { cause })
    this.name = 'ChunkLoadError'
  }
}

/** Runs `load`; rejects with a ChunkLoadError when it fails or takes longer than `timeoutMs`. */
export function loadWithTimeout<T>(
  load: () => Promise<T>,
  timeoutMs = chunkLoadTimeout,
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new ChunkLoadError(`page chunk did not load within ${timeoutMs / 1000} s`)),
      timeoutMs,
    )
    load().then(
      (value) => {
        clearTimeout(timer)
        resolve(value)
      },
      (error: unknown) => {
        clearTimeout(timer)
        reject(
          new ChunkLoadError(error instanceof Error ? error.message : 'page chunk failed', error),
        )
      },
    )
  })
}

export const isChunkLoadError = (error: unknown): boolean => error instanceof ChunkLoadError
