/**
 * Whether the online tiles can be shown: one tile over China is fetched as an image with a short
 * time-out. The console often runs where there is no internet (a plant's LAN); the map then shows
 * the bundled outlines alone and says nothing. The answer is kept per template for the page's life.
 */

/** Loads an image URL; resolves true when it loaded. Replaceable in tests. */
export type ImageProbe = (url: string, timeoutMs: number) => Promise<boolean>

export const browserImageProbe: ImageProbe = (url, timeoutMs) =>
  new Promise((resolve) => {
    const img = new Image()
    const timer = setTimeout(() => {
      img.src = ''
      resolve(false)
    }, timeoutMs)
    img.onload = () => {
      clearTimeout(timer)
      resolve(true)
    }
    img.onerror = () => {
      clearTimeout(timer)
      resolve(false)
    }
    img.src = url
  })

/** The tile at zoom 4 that holds central China (x 12, y 6), subdomain `a`. */
export function probeTileUrl(template: string): string {
  return template
    .replace('{s}', 'a')
    .replace('{z}', '4')
    .replace('{x}', '12')
    .replace('{y}', '6')
    .replace('{r}', '')
}

const known = new Map<string, Promise<boolean>>()

/** True when tiles of `template` load; false for an empty template, an error or a time-out. */
export function tilesReachable(
  template: string,
  timeoutMs: number,
  probe: ImageProbe = browserImageProbe,
): Promise<boolean> {
  if (template.trim() === '') return Promise.resolve(false)
  let answer = known.get(template)
  if (!answer) {
    answer = probe(probeTileUrl(template), timeoutMs).catch(() => false)
    known.set(template, answer)
  }
  return answer
}

/** Forgets the probes (tests). */
export function forgetTileProbes(): void {
  known.clear()
}
