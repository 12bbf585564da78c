/**
 * Series of the wave chart (chosen metrics of chosen inverters over one day): gaps left open,
 * long series thinned without losing their peaks, one y axis per unit in a readable scale.
 */
import { metricUnit } from '../../../api/realtime/metrics'
import { displayUnit } from '../../../utils/units'

/** [epoch ms, value]; null value = no data (the line breaks). */
export type Point = [number, number | null]

/**
 * Inserts a null point inside every silence longer than `gapMs`, so the line does not draw a
 * straight bridge over an outage. Points are sorted by time first.
 */
export function breakGaps(points: readonly Point[], gapMs: number): Point[] {
  const sorted = [...points].sort((a, b) => a[0] - b[0])
  const out: Point[] = []
  for (let i = 0; i < sorted.length; i++) {
    const prev = sorted[i - 1]
    if (prev && sorted[i][0] - prev[0] > gapMs && prev[1] !== null && sorted[i][1] !== null) {
      out.push([prev[0] + Math.round((sorted[i][0] - prev[0]) / 2), null])
    }
    out.push(sorted[i])
  }
  return out
}

/**
 * Min/max thinning to at most about `maxPoints`: each bucket of a run keeps its lowest and its
 * highest point in time order (a spike or a dip stays visible, unlike averaging). Null points are
 * kept: they separate runs.
 */
export function downsampleMinMax(points: readonly Point[], maxPoints: number): Point[] {
  const values = points.filter((p) => p[1] !== null).length
  if (values <= maxPoints || maxPoints < 4) return [...points]
  const per = Math.ceil(values / Math.floor(maxPoints / 2))
  const out: Point[] = []
  let bucket: Point[] = []
  const flush = () => {
    if (bucket.length === 0) return
    let lo = bucket[0]
    let hi = bucket[0]
    for (const p of bucket) {
      if ((p[1] as number) < (lo[1] as number)) lo = p
      if ((p[1] as number) > (hi[1] as number)) hi = p
    }
    if (lo === hi) out.push(lo)
    else out.push(...(lo[0] <= hi[0] ? [lo, hi] : [hi, lo]))
    bucket = []
  }
  for (const p of points) {
    if (p[1] === null) {
      flush()
      out.push(p)
      continue
    }
    bucket.push(p)
    if (bucket.length >= per) flush()
  }
  flush()
  return out
}

/** The readable scale of an axis: W → kW when values reach thousands, etc. */
export interface AxisScale {
  /** Unit shown (kW, MWh, V...). */
  unit: string
  /** Divide canonical values by this. */
  factor: number
}

const LADDERS: Readonly<Record<string, readonly string[]>> = {
  W: ['W', 'kW', 'MW'],
  Wh: ['Wh', 'kWh', 'MWh'],
  var: ['var', 'kvar', 'Mvar'],
  VA: ['VA', 'kVA', 'MVA'],
  Ohm: ['Ohm', 'kOhm', 'MOhm'],
}

export function axisScale(unit: string, maxAbs: number): AxisScale {
  const ladder = LADDERS[unit]
  if (!ladder) return { unit: displayUnit(unit), factor: 1 }
  let i = 0
  while (i < ladder.length - 1 && maxAbs >= 1000 ** (i + 1)) i++
  return { unit: ladder[i].replace('Ohm', 'Ω'), factor: 1000 ** i }
}

/** One answered series: a metric of a device. */
export interface WaveInput {
  /** Shown in the legend (device name). */
  device: string
  metric: string
  /** Metric label in the current language. */
  label: string
  points: readonly Point[]
}

export interface WaveSeries {
  name: string
  metric: string
  yAxisIndex: number
  data: Point[]
}

export interface WaveAxis {
  /** Canonical unit of the metrics on it. */
  unit: string
  scale: AxisScale
}

export interface WaveChart {
  axes: WaveAxis[]
  series: WaveSeries[]
}

export interface WaveOptions {
  /** Silence that breaks the line, ms (default 15 min: three missed 5-minute buckets). */
  gapMs?: number
  /** Points per series at most (default 720: one per 2 min over a day). */
  maxPoints?: number
}

/**
 * Builds the chart: one axis per unit (in first-seen order), values scaled to the axis' unit,
 * gaps broken, long series thinned. Legend names read "device · metric" when several devices are
 * shown, else the metric alone.
 */
export function buildWave(inputs: readonly WaveInput[], options: WaveOptions = {}): WaveChart {
  const gapMs = options.gapMs ?? 15 * 60_000
  const maxPoints = options.maxPoints ?? 720
  const units: string[] = []
  const maxAbs = new Map<string, number>()
  for (const input of inputs) {
    const unit = metricUnit(input.metric)
    if (!units.includes(unit)) units.push(unit)
    for (const [, v] of input.points) {
      if (v !== null && Number.isFinite(v)) {
        maxAbs.set(unit, Math.max(maxAbs.get(unit) ?? 0, Math.abs(v)))
      }
    }
  }
  const axes = units.map((unit) => ({ unit, scale: axisScale(unit, maxAbs.get(unit) ?? 0) }))
  const devices = new Set(inputs.map((i) => i.device))
  const series = inputs.map((input) => {
    const yAxisIndex = units.indexOf(metricUnit(input.metric))
    const { factor } = axes[yAxisIndex].scale
    const clean: Point[] = input.points.map(([t, v]) => [
      t,
      v === null || !Number.isFinite(v) ? null : v / factor,
    ])
    return {
      name: devices.size > 1 ? `${input.device} · ${input.label}` : input.label,
      metric: input.metric,
      yAxisIndex,
      data: downsampleMinMax(breakGaps(clean, gapMs), maxPoints),
    }
  })
  return { axes, series }
}

/**
 * Legend names of the devices of a curve answer: over stations on different clocks each series
 * covers its own station's day, so its name says which clock (`INV-1 (UTC-12:00)`); on one clock
 * the names stay bare (the card states the clock once). `mixed` tells which case it is.
 */
export function clockedDevices(
  series: readonly { deviceName: string; utcOffset?: string }[],
  fallback: string,
): { names: string[]; mixed: boolean } {
  const offsets = series.map((s) => s.utcOffset || fallback)
  const mixed = new Set(offsets).size > 1
  return {
    names: series.map((s, i) => (mixed ? `${s.deviceName} (UTC${offsets[i]})` : s.deviceName)),
    mixed,
  }
}
