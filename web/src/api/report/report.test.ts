import { afterEach, describe, expect, it, vi } from 'vitest'
import { mockHttp, ok, unmockHttp } from '../../test/http'
import { configureRequest } from '../request'
import { anchorOf, daysBetween, periodParams, periodProblem, pinned, switchType } from './period'
import {
  billSettlement,
  energyConservation,
  exportPath,
  exportReport,
  fetchReport,
  inverterElectricity,
  meterReport,
  putReportSetting,
  stationElectricity,
  stationInverters,
} from './report'

afterEach(() => unmockHttp())

describe('report periods', () => {
  it('sends only the fields of the type, as typed', () => {
    expect(periodParams({ type: 'day', date: '2026-11-26', start: '2026-01-01' })).toEqual({
      type: 'day',
      date: '2026-11-26',
    })
    expect(periodParams({ type: 'month' })).toEqual({ type: 'month' })
    expect(
      periodParams({ type: 'range', date: 'x', start: '2026-11-01', end: ' 2026-11-26 ' }),
    ).toEqual({ type: 'range', start: '2026-11-01', end: '2026-11-26' })
    expect(periodParams({ type: 'years', start: '2022', end: '2026' })).toEqual({
      type: 'years',
      start: '2022',
      end: '2026',
    })
  })

  it('switches type around the date on screen, by the calendar only', () => {
    expect(switchType('month', '2026-11-26')).toEqual({ type: 'month', date: '2026-11' })
    expect(switchType('year', '2026-11')).toEqual({ type: 'year', date: '2026' })
    expect(switchType('range', '2026-11-26')).toEqual({
      type: 'range',
      start: '2026-11-01',
      end: '2026-11-26',
    })
    expect(switchType('range', '2024-02')).toEqual({
      type: 'range',
      start: '2024-02-01',
      end: '2024-02-29',
    })
    expect(switchType('years', '2026')).toEqual({ type: 'years', start: '2022', end: '2026' })
    expect(switchType('day', '2026-11')).toEqual({ type: 'day' })
    expect(switchType('day', undefined)).toEqual({ type: 'day' })
    expect(anchorOf('2026-11-01~2026-11-30')).toBe('2026-11-30')
    expect(anchorOf('2022~2026')).toBe('2026')
  })

  it('names what is wrong before asking: reversed, too long, missing', () => {
    expect(daysBetween('2025-11-26', '2026-11-26')).toBe(365)
    expect(periodProblem({ type: 'range', start: '2025-11-26', end: '2026-11-26' })).toBeNull()
    expect(periodProblem({ type: 'range', start: '2024-01-01', end: '2024-12-31' })).toBeNull()
    expect(periodProblem({ type: 'range', start: '2024-01-01', end: '2025-01-01' })).toBe(
      'rangeTooLong',
    )
    expect(periodProblem({ type: 'range', start: '2026-11-02', end: '2026-11-01' })).toBe(
      'reversed',
    )
    expect(periodProblem({ type: 'range' })).toBe('pickRange')
    expect(periodProblem({ type: 'years', start: '1990', end: '2026' })).toBe('tooManyYears')
    expect(periodProblem({ type: 'day' })).toBeNull()
  })

  it('pins the station day the hub chose before exporting', () => {
    expect(pinned({ type: 'day' }, '2026-11-26')).toEqual({ type: 'day', date: '2026-11-26' })
    expect(pinned({ type: 'day', date: '2026-11-20' }, '2026-11-20')).toEqual({
      type: 'day',
      date: '2026-11-20',
    })
    expect(pinned({ type: 'range', start: 'a', end: 'b' }, 'a~b')).toEqual({
      type: 'range',
      start: 'a',
      end: 'b',
    })
  })
})

describe('report requests', () => {
  const month = { type: 'month' as const, date: '2026-11' }

  it('builds each report path with its ids and the period', () => {
    expect(stationElectricity('5', month)).toEqual({
      path: '/report/station/electricity',
      params: { stationId: '5', type: 'month', date: '2026-11' },
    })
    expect(inverterElectricity('5', ['7', '8'], month).params).toMatchObject({
      stationId: '5',
      inverterIds: '7,8',
    })
    expect(inverterElectricity('5', [], month).params).not.toHaveProperty('inverterIds')
    expect(energyConservation([], month).params).toEqual({ type: 'month', date: '2026-11' })
    expect(energyConservation(['1', '2'], month).params.stationIds).toBe('1,2')
    expect(billSettlement('5', month).path).toBe('/stationMeterReport/electricityBillSettlement')
  })

  it('gives each meter granularity its own path, a range to historyMeter', () => {
    expect(meterReport('5', { type: 'day', date: '2026-11-26' })).toEqual({
      path: '/meterReport/reportDaily',
      params: { stationId: '5', date: '2026-11-26' },
    })
    expect(meterReport('5', month).path).toBe('/meterReport/reportMonthly')
    expect(meterReport('5', { type: 'year' }).path).toBe('/meterReport/reportYearly')
    expect(meterReport('5', { type: 'years', start: '2024', end: '2026' })).toEqual({
      path: '/meterReport/reportOfYears',
      params: { stationId: '5', start: '2024', end: '2026' },
    })
    expect(meterReport('5', { type: 'range', start: '2026-11-01', end: '2026-11-02' })).toEqual({
      path: '/stationMeterReport/historyMeter',
      params: { stationId: '5', type: 'range', start: '2026-11-01', end: '2026-11-02' },
    })
  })

  it('exports exactly the query on screen: the same params under /export', async () => {
    const calls = mockHttp(() => ok({ title: '2026-11' }))
    const r = stationElectricity('5', month)
    await fetchReport(r)
    const file = await exportReport(r, 'x.xlsx')
    expect(exportPath(r)).toBe('/report/station/electricity/export')
    expect(calls.map((c) => c.path)).toEqual([
      '/report/station/electricity',
      '/report/station/electricity/export',
    ])
    expect(calls[1].params.toString()).toBe(calls[0].params.toString())
    expect(file.filename).toBe('x.xlsx')
  })

  it('reads a station inverters as ids and names', async () => {
    const calls = mockHttp(() =>
      ok({
        records: [
          { id: 7, name: 'INV-7' },
          { id: '8', sn: 'SN8' },
        ],
      }),
    )
    expect(await stationInverters('5')).toEqual([
      { id: '7', name: 'INV-7' },
      { id: '8', name: 'SN8' },
    ])
    expect(calls[0].params.get('stationId')).toBe('5')
  })

  it('saves the settings silently, rejecting with the hub message', async () => {
    const notifyError = vi.fn<(text: string) => void>()
    configureRequest({ notifyError })
    mockHttp(() => ({
      code: 403,
      success: false,
      data: null,
      msg: '仅限不受电站分配限制的用户修改',
    }))
    await expect(putReportSetting({ currency: 'EUR' })).rejects.toThrow('仅限不受电站分配限制')
    expect(notifyError).not.toHaveBeenCalled()
  })
})
