/**
 * The typed answers of the report calls (`cloud/src/report/*_api.rs`). Ids are JSON strings;
 * `null` is "not measured" (no data), which the console shows as "—", never as 0.
 */
import type { PeriodType } from './period'

type Num = number | null

export interface GenerationPoint {
  /** `HH:00`, `yyyy-MM-dd`, `yyyy-MM`, `yyyy`, or `total`. */
  label: string
  energyKwh: Num
  equivalentHours: Num
  irradiationKwhM2: Num
  exportKwh: Num
  importKwh: Num
}

export interface StationGeneration {
  stationId: string
  stationName: string
  capacityKwp: Num
  title: string
  timeType: PeriodType
  points: GenerationPoint[]
  total: GenerationPoint
}

export interface Performance {
  /** The counted energy of every interval, as the generation report shows it (null: no data). */
  energyKwh: Num
  /** The energy of the intervals PR counts. */
  prEnergyKwh: number
  irradiationKwhM2: number
  finalYield: Num
  referenceYield: Num
  /** 0..1 */
  pr: Num
  prTemperatureCorrected: Num
  expectedEnergyKwh: Num
  /** 0..1 */
  availability: Num
  countedIntervals: number
  implausibleIntervals: number
  missingIntervals: number
}

export interface PerformanceSetting {
  /** γ, %/K */
  temperatureCoefficientPct: number
  designPr: number
  /** W/m² */
  availabilityThreshold: number
}

export interface StationPerformance {
  stationId: string
  stationName: string
  capacityKwp: Num
  title: string
  timeType: PeriodType
  prKind: string
  planeOfArray: boolean
  interval: string
  setting: PerformanceSetting
  points: (Performance & { label: string })[]
  total: Performance
}

export interface InverterPoint {
  label: string
  energyKwh: Num
  equivalentHours: Num
  sharePct: Num
}

export interface InverterGeneration {
  inverterId: string
  inverterName: string
  stationId: string
  stationName: string
  capacityKwp: Num
  title: string
  timeType: PeriodType
  points: InverterPoint[]
  total: InverterPoint
}

export interface IrradiancePoint {
  label: string
  poaKwhM2: Num
  ghiKwhM2: Num
  peakIrradiance: Num
  ambientTemperature: Num
}

export interface StationIrradiance {
  stationId: string
  stationName: string
  weatherId: string | null
  title: string
  timeType: PeriodType
  points: IrradiancePoint[]
  total: IrradiancePoint
}

export interface MeterCounter {
  energy: Num
  startReading: Num
  endReading: Num
  /** `yyyy-MM-dd HH:mm` (station clock) of the hours where the counter went down. */
  resets: string[]
}

export const METER_COUNTERS = [
  'energyImport',
  'energyExport',
  'reactiveEnergyImport',
  'reactiveEnergyExport',
] as const
export type MeterCounterName = (typeof METER_COUNTERS)[number]

export type MeterPoint = {
  label: string
  missingHours: number
} & Partial<Record<MeterCounterName, MeterCounter>>

export interface MeterRows {
  meterId: string
  meterName: string
  sn: string
  /** 1 grid, 2 generation, 3 consumption. */
  meterRole: string
  points: MeterPoint[]
  total: MeterPoint
}

export interface MeterReport {
  stationId: string
  stationName: string
  title: string
  timeType: PeriodType
  meters: MeterRows[]
}

export interface SegmentLine {
  /** `price_segment_type` key: 1 sharp, 2 peak, 3 flat, 4 valley. */
  kind: string
  generationKwh: number
  selfConsumedKwh: number
  exportedKwh: number
  selfConsumedAmount: number
  exportedAmount: number
  minPrice: Num
  maxPrice: Num
}

export interface BillFigures {
  generationKwh: number
  selfConsumedKwh: number
  exportedKwh: number
  importedKwh: number
  selfConsumedAmount: number
  exportedAmount: number
  amount: number
  segments: SegmentLine[]
}

export type GridConnection = 'fullFeedIn' | 'selfUseSurplus' | 'fullSelfUse'

export interface StationBill {
  stationId: string
  stationName: string
  title: string
  timeType: PeriodType
  currency: string
  connectedType: string | null
  gridConnection: GridConnection
  contributionWay: string | null
  discountFactor: number
  points: (BillFigures & { label: string })[]
  total: BillFigures
  unpricedDays: string[]
  noFeedInDays: string[]
  unpricedKwh: number
  exportCappedIntervals: number
  interval: string
}

export interface RatePoint {
  label: string
  generationKwh: Num
  selfConsumedKwh: Num
  exportedKwh: Num
  importedKwh: Num
  selfConsumptionRatio: Num
  feedInRatio: Num
  selfSufficiencyRatio: Num
}

export interface StationRates {
  stationId: string
  stationName: string
  title: string
  timeType: PeriodType
  metered: boolean
  points: RatePoint[]
  total: RatePoint
}

export interface Savings {
  energyKwh: number
  coalT: number
  co2T: number
  so2T: number
  noxT: number
  dustT: number
  trees: number
}

export interface ReportSetting {
  currency: string
  emcDiscountPct: number
  temperatureCoefficientPct: number
  designPr: number
  availabilityThreshold: number
}

/**
 * Savings coefficients (system parameters `energy.*`, kg per kWh; kg of CO2 a tree absorbs in a
 * year), as an answer used them.
 */
export interface Factors {
  coalKgPerKwh: number
  co2KgPerKwh: number
  so2KgPerKwh: number
  noxKgPerKwh: number
  dustKgPerKwh: number
  co2KgPerTree: number
}

export interface EnergyConservation {
  title: string
  timeType: PeriodType
  stationIds: string[]
  points: (Savings & { label: string })[]
  total: Savings
  factors: Factors
}

export interface NamedId {
  id: string
  name: string
}
