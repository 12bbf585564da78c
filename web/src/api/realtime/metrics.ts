/**
 * The metric vocabulary as the console needs it (mirror of `shared/src/metrics.rs`): every value
 * arrives in its canonical unit; the name says which. `pv{n}_*` / `mppt{n}_*` carry a 1-based index,
 * `*_{a,b,c}` a phase, `*_{ab,bc,ca}` a line.
 */

export interface MetricName {
  /** The name with its index / phase replaced by a placeholder: `pv{n}_voltage`, `grid_voltage_{p}`. */
  base: string
  /** 1-based index of `pv{n}_...` / `mppt{n}_...` / `fault_word{n}`. */
  n?: number
  /** Phase (a/b/c) or line (ab/bc/ca). */
  phase?: string
}

const indexed = /^(pv|mppt|fault_word)([1-9]\d{0,2})(_.*)?$/
const phased = /^(.*)_(a|b|c|ab|bc|ca)$/

/** Splits a concrete metric name into its pattern and index/phase. */
export function parseMetric(name: string): MetricName {
  const i = indexed.exec(name)
  if (i) return { base: `${i[1]}{n}${i[3] ?? ''}`, n: Number(i[2]) }
  const p = phased.exec(name)
  if (p && (p[1] === 'grid_voltage' || p[1] === 'ac_current' || p[1] === 'ac_power')) {
    return { base: `${p[1]}_${p[2].length === 1 ? '{p}' : '{pp}'}`, phase: p[2] }
  }
  return { base: name }
}

const UNITS: Readonly<Record<string, string>> = {
  ac_power: 'W',
  'ac_power_{p}': 'W',
  ac_reactive_power: 'var',
  ac_apparent_power: 'VA',
  power_factor: '1',
  grid_frequency: 'Hz',
  grid_voltage: 'V',
  'grid_voltage_{p}': 'V',
  'grid_voltage_{pp}': 'V',
  ac_current: 'A',
  'ac_current_{p}': 'A',
  peak_power_today: 'W',
  dc_power: 'W',
  dc_voltage: 'V',
  dc_current: 'A',
  'pv{n}_voltage': 'V',
  'pv{n}_current': 'A',
  'pv{n}_power': 'W',
  'mppt{n}_voltage': 'V',
  'mppt{n}_current': 'A',
  'mppt{n}_power': 'W',
  'mppt{n}_energy_total': 'Wh',
  energy_total: 'Wh',
  energy_today: 'Wh',
  energy_import: 'Wh',
  energy_export: 'Wh',
  reactive_energy_import: 'varh',
  reactive_energy_export: 'varh',
  running_time_total: 's',
  temperature: 'degC',
  heatsink_temperature: 'degC',
  efficiency: '%',
  insulation_resistance: 'Ohm',
  status_code: 'code',
  fault_code: 'code',
  'fault_word{n}': 'code',
  warning_code: 'code',
  irradiance_poa: 'W/m2',
  irradiance_ghi: 'W/m2',
  irradiance_dni: 'W/m2',
  irradiance_diffuse: 'W/m2',
  irradiance_other: 'W/m2',
  irradiation_today: 'Wh/m2',
  ambient_temperature: 'degC',
  module_temperature: 'degC',
  humidity: '%',
  air_pressure: 'hPa',
  wind_speed: 'm/s',
  wind_direction: 'deg',
  rainfall: 'mm',
  tracker_angle: 'deg',
  tracker_target_angle: 'deg',
  tracker_mode: 'code',
  tracker_stow: 'code',
  motor_current: 'A',
  serial_number: 'text',
  model_name: 'text',
  firmware_version: 'text',
}

/** Canonical unit of a metric ('' when the vocabulary does not know it). */
export function metricUnit(name: string): string {
  return UNITS[parseMetric(name).base] ?? ''
}

/** Numeric metrics worth charting (not codes, not text). */
export function isChartable(name: string): boolean {
  const unit = metricUnit(name)
  return unit !== '' && unit !== 'code' && unit !== 'text'
}
