/**
 * Numbers of the monitoring screens with their units, scaled the way PV operators read them:
 * 850 W, 12.35 kW, 1.23 MW; 0.5 kWh, 1.24 MWh; 100 kWp, 2.5 MWp; 820 kg, 1.2 t.
 *
 * Inputs are canonical units (W, Wh, Wp, kg): the API modules convert what the server sends.
 * A missing value (null, undefined, NaN) formats as "--", never as 0.
 */

export interface Scaled {
  /** Formatted number (grouping, 0–2 decimals). */
  value: string
  unit: string
  /** The scaled number itself (charts, comparisons). */
  number: number
}

export const EMPTY = '--'

interface Ladder {
  units: readonly string[]
  /** Factor between neighbouring units. */
  step: number
}

const power: Ladder = { units: ['W', 'kW', 'MW', 'GW'], step: 1000 }
const energy: Ladder = { units: ['Wh', 'kWh', 'MWh', 'GWh', 'TWh'], step: 1000 }
const peak: Ladder = { units: ['Wp', 'kWp', 'MWp', 'GWp'], step: 1000 }
const mass: Ladder = { units: ['kg', 't', 'kt', 'Mt'], step: 1000 }

const isNumber = (value: number | null | undefined): value is number =>
  typeof value === 'number' && Number.isFinite(value)

/** Decimals shown for a scaled magnitude: 2 below 100, 1 below 1000, else none. */
export function decimalsFor(magnitude: number): number {
  const abs = Math.abs(magnitude)
  if (abs < 100) return 2
  if (abs < 1000) return 1
  return 0
}

/** Formats with grouping and up to `decimals` decimals (trailing zeros dropped, "-0" avoided). */
export function formatNumber(value: number, decimals = decimalsFor(value)): string {
  const text = value.toLocaleString('en-US', {
    minimumFractionDigits: 0,
    maximumFractionDigits: decimals,
  })
  return text === '-0' ? '0' : text
}

/**
 * Picks the unit of `ladder` that keeps the magnitude below `step` (and at least `minUnit`), e.g.
 * 12_345 W → 12.35 kW. The largest unit takes everything above it (12,345 GW).
 */
function scale(value: number, ladder: Ladder, minUnit?: string): Scaled {
  let index = Math.max(0, minUnit ? ladder.units.indexOf(minUnit) : 0)
  let number = value / ladder.step ** index
  while (Math.abs(number) >= ladder.step && index < ladder.units.length - 1) {
    number /= ladder.step
    index++
  }
  // Rounding may carry into the next unit (999.96 kW → "1,000 kW"): move up instead.
  if (
    Math.abs(Number(number.toFixed(decimalsFor(number)))) >= ladder.step &&
    index < ladder.units.length - 1
  ) {
    number /= ladder.step
    index++
  }
  return { value: formatNumber(number), unit: ladder.units[index], number }
}

const emptyScaled = (unit: string): Scaled => ({ value: EMPTY, unit, number: NaN })

/** Power in W → W / kW / MW / GW (from `minUnit`, default W). */
export function scalePower(watts: number | null | undefined, minUnit = 'W'): Scaled {
  return isNumber(watts) ? scale(watts, power, minUnit) : emptyScaled(minUnit)
}

/** Energy in Wh → kWh / MWh / GWh (from `minUnit`, default kWh: operators count kWh). */
export function scaleEnergy(wattHours: number | null | undefined, minUnit = 'kWh'): Scaled {
  return isNumber(wattHours) ? scale(wattHours, energy, minUnit) : emptyScaled(minUnit)
}

/** Installed (peak) capacity in Wp → kWp / MWp / GWp (from kWp). */
export function scaleCapacity(wattsPeak: number | null | undefined, minUnit = 'kWp'): Scaled {
  return isNumber(wattsPeak) ? scale(wattsPeak, peak, minUnit) : emptyScaled(minUnit)
}

/** Mass in kg → kg / t / kt / Mt (CO2 avoided, coal saved). */
export function scaleMass(kg: number | null | undefined): Scaled {
  return isNumber(kg) ? scale(kg, mass) : emptyScaled('kg')
}

const joined = (s: Scaled) => (s.value === EMPTY ? EMPTY : `${s.value} ${s.unit}`)

export const formatPower = (watts: number | null | undefined, minUnit?: string): string =>
  joined(scalePower(watts, minUnit))
export const formatEnergy = (wattHours: number | null | undefined, minUnit?: string): string =>
  joined(scaleEnergy(wattHours, minUnit))
export const formatCapacity = (wattsPeak: number | null | undefined): string =>
  joined(scaleCapacity(wattsPeak))
export const formatMass = (kg: number | null | undefined): string => joined(scaleMass(kg))

/** A plain measurement with a fixed unit (V, A, Hz, °C, W/m², %), "--" when missing. */
export function formatValue(
  value: number | null | undefined,
  unit?: string,
  decimals?: number,
): string {
  if (!isNumber(value)) return EMPTY
  const text = formatNumber(value, decimals ?? decimalsFor(value))
  return unit ? `${text} ${unit}` : text
}

/** Percentage of `part` over `whole` (0–100), null when it cannot be computed. */
export function percentOf(
  part: number | null | undefined,
  whole: number | null | undefined,
): number | null {
  if (!isNumber(part) || !isNumber(whole) || whole <= 0) return null
  return (part / whole) * 100
}

/**
 * CO2 avoided per kWh generated, kg (a common figure in China's PV reporting, see
 * docs pv-domain "Energy conservation"). The console says which coefficient it uses.
 */
export const CO2_KG_PER_KWH = 0.997

/** kg of CO2 avoided by `wattHours` of generation. */
export function co2AvoidedKg(wattHours: number | null | undefined): number | null {
  return isNumber(wattHours) ? (wattHours / 1000) * CO2_KG_PER_KWH : null
}

/** Canonical unit symbols as the console shows them (degC → °C, W/m2 → W/m²). */
export function displayUnit(unit: string | null | undefined): string {
  switch (unit) {
    case 'degC':
      return '°C'
    case 'W/m2':
      return 'W/m²'
    case 'Wh/m2':
      return 'Wh/m²'
    case 'kWh/m2':
      return 'kWh/m²'
    case 'deg':
      return '°'
    case 'kOhm':
      return 'kΩ'
    case '1':
    case 'code':
    case 'text':
    case null:
    case undefined:
      return ''
    default:
      return unit
  }
}
