import type { Factors, Savings } from '../../../api/report/types'

/** The savings figures shown, their unit and decimals, in order. */
export const SAVINGS = [
  { key: 'coalT', unit: 't', digits: 3 },
  { key: 'co2T', unit: 't', digits: 3 },
  { key: 'so2T', unit: 't', digits: 4 },
  { key: 'noxT', unit: 't', digits: 4 },
  { key: 'dustT', unit: 't', digits: 4 },
  { key: 'trees', unit: '', digits: 1 },
] as const satisfies readonly { key: keyof Savings; unit: string; digits: number }[]

/** The coefficients the answer used (system parameters `energy.<key>`), with their units. */
export const COEFFICIENTS = [
  { key: 'coalKgPerKwh', unit: 'kg/kWh' },
  { key: 'co2KgPerKwh', unit: 'kg/kWh' },
  { key: 'so2KgPerKwh', unit: 'kg/kWh' },
  { key: 'noxKgPerKwh', unit: 'kg/kWh' },
  { key: 'dustKgPerKwh', unit: 'kg/kWh' },
  { key: 'co2KgPerTree', unit: 'kg' },
] as const satisfies readonly { key: keyof Factors; unit: string }[]

/** Coal saved and CO2 avoided per slot (t). */
export function savingsChart(
  points: readonly (Savings & { label: string })[],
  text: { coal: string; co2: string },
) {
  return {
    labels: points.map((p) => p.label),
    leftName: 't',
    bars: [
      { name: text.coal, data: points.map((p) => p.coalT), color: '#8c8c8c' },
      { name: text.co2, data: points.map((p) => p.co2T), color: '#52c41a' },
    ],
  }
}
