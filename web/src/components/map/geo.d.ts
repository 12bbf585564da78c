// The bundled GeoJSON is data, not code: typed where it is loaded (chinaGeo.ts), not inferred
// from 150 kB of coordinates.
declare module '*/china-provinces.json' {
  const value: unknown
  export default value
}
