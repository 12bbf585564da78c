/**
 * The report calls (`cloud/src/report/`). Each report is a `ReportRequest` (path + params) built
 * by a pure function, so the screen's query and its Excel export (the same path + `/export`, the
 * same params) can never ask for different things.
 */
import { download, saveDownload, type Download } from '../station/excel'
import request from '../request'
import type { Envelope, Page } from '../types'
import { periodParams, type Period } from './period'
import type { NamedId, ReportSetting } from './types'

export interface ReportRequest {
  /** Under /api, e.g. `/report/station/electricity`. */
  path: string
  params: Record<string, string>
}

const withPeriod = (path: string, ids: Record<string, string>, p: Period): ReportRequest => ({
  path,
  params: { ...ids, ...periodParams(p) },
})

export const stationElectricity = (stationId: string, p: Period) =>
  withPeriod('/report/station/electricity', { stationId }, p)

/** IEC 61724-1 PR, temperature-corrected PR, expected energy and availability. */
export const stationPerformance = (stationId: string, p: Period) =>
  withPeriod('/report/station/electricity/rate', { stationId }, p)

/** A station's inverters side by side: all of them, or those chosen. */
export const inverterElectricity = (stationId: string, inverterIds: readonly string[], p: Period) =>
  withPeriod(
    '/report/inverter/multiple/electricity',
    inverterIds.length > 0 ? { stationId, inverterIds: inverterIds.join(',') } : { stationId },
    p,
  )

export const irradianceList = (stationId: string, p: Period) =>
  withPeriod('/report/irradiance/list', { stationId }, p)

/**
 * Meter counters: the day, month, year and years reports have their own paths (the granularity
 * is in the path, not in `type`); a range of days goes through `historyMeter`.
 */
export function meterReport(stationId: string, p: Period): ReportRequest {
  const { type, ...rest } = periodParams(p)
  const paths: Record<string, string> = {
    day: '/meterReport/reportDaily',
    month: '/meterReport/reportMonthly',
    year: '/meterReport/reportYearly',
    years: '/meterReport/reportOfYears',
  }
  const path = paths[type]
  return path
    ? { path, params: { stationId, ...rest } }
    : withPeriod('/stationMeterReport/historyMeter', { stationId }, p)
}

export const billSettlement = (stationId: string, p: Period) =>
  withPeriod('/stationMeterReport/electricityBillSettlement', { stationId }, p)

/** Self-consumption, feed-in and self-sufficiency ratios. */
export const selfConsumption = (stationId: string, p: Period) =>
  withPeriod('/stationMeterReport/rate', { stationId }, p)

/** Savings of the chosen stations (every visible one when none is chosen). */
export const energyConservation = (stationIds: readonly string[], p: Period) =>
  withPeriod(
    '/stationMeterReport/energyConservation',
    stationIds.length > 0 ? { stationIds: stationIds.join(',') } : {},
    p,
  )

/** The answer of a report request. */
export async function fetchReport<T>(r: ReportRequest): Promise<T> {
  const res = await request.get<Envelope<T>>(r.path, { params: r.params })
  return res.data.data
}

/** The path of a report's workbook. */
export const exportPath = (r: ReportRequest) => `${r.path}/export`

/** The workbook of exactly this request (same params), with the file name the hub gives it. */
export function exportReport(r: ReportRequest, fallback: string): Promise<Download> {
  return download(exportPath(r), fallback, r.params)
}

export async function downloadReport(r: ReportRequest, fallback: string): Promise<void> {
  saveDownload(await exportReport(r, fallback))
}

export async function getReportSetting(): Promise<ReportSetting> {
  const res = await request.get<Envelope<ReportSetting>>('/report/setting')
  return res.data.data
}

/** Saves the tenant's report settings; silent, so the form shows the hub's message itself. */
export async function putReportSetting(body: Partial<ReportSetting>): Promise<ReportSetting> {
  const res = await request.put<Envelope<ReportSetting>>('/report/setting', body, { silent: true })
  return res.data.data
}

/** The inverters of a station (id and name), for the inverter picker. */
export async function stationInverters(stationId: string): Promise<NamedId[]> {
  const res = await request.get<Envelope<Page<Record<string, unknown>> | null>>('/inverter/page', {
    params: { stationId, current: 1, size: 500 },
  })
  const text = (v: unknown) => (typeof v === 'string' || typeof v === 'number' ? String(v) : '')
  return (res.data.data?.records ?? []).map((r) => ({
    id: text(r.id),
    name: text(r.name) || text(r.sn),
  }))
}
