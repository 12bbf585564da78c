import { afterEach, describe, expect, it, vi } from 'vitest'
import { mockHttp, ok, unmockHttp } from '../../test/http'
import { alarmDataFlexApi, alarmSettingFlexApi } from '../alarm/flex'
import { configureRequest } from '../request'
import {
  DEFAULT_DISPERSION_SETTING,
  dispersionList,
  toRecord,
  toSetting,
  updateDispersionSetting,
} from './discreteRate'
import { hdayPage, hdayQuery, putHdaySetting } from './hdayRate'

afterEach(() => unmockHttp())

describe('dispersion calls', () => {
  it('sends the station and the date only when one is chosen', async () => {
    const calls = mockHttp(() => ok({ date: '2026-11-23', records: [] }))
    await dispersionList('7')
    await dispersionList('7', '2026-11-20')
    expect(calls.map((c) => [c.path, c.params.toString()])).toEqual([
      ['/discreteRate/list', 'stationId=7'],
      ['/discreteRate/list', 'stationId=7&date=2026-11-20'],
    ])
  })

  it('reads records: ids as text, unknown levels as none, strings in order', () => {
    const r = toRecord({
      inverterId: 12,
      inverterName: 'INV',
      stationId: 3,
      level: 'terrible',
      rate: '7.5',
      strings: [
        { index: 2, normalisedA: 8, deviationPct: 1 },
        { index: 1, normalisedA: '7', deviationPct: null },
      ],
    })
    expect(r.inverterId).toBe('12')
    expect(r.stationId).toBe('3')
    expect(r.level).toBe('none')
    expect(r.rate).toBe(7.5)
    expect(r.stringCount).toBe(2)
    expect(r.strings.map((s) => [s.index, s.normalisedA])).toEqual([
      [1, 7],
      [2, 8],
    ])
  })

  it('fills a partial setting with the defaults and reads booleans', () => {
    expect(toSetting(null)).toEqual(DEFAULT_DISPERSION_SETTING)
    expect(toSetting({ goodMax: '12', shadingTolerant: 1 })).toEqual({
      ...DEFAULT_DISPERSION_SETTING,
      goodMax: 12,
      shadingTolerant: true,
    })
  })

  it('posts the setting as the body', async () => {
    const calls = mockHttp(() => ok(true))
    await updateDispersionSetting(DEFAULT_DISPERSION_SETTING)
    expect(calls[0].method).toBe('post')
    expect(calls[0].path).toBe('/discreteRate/updateSetting')
    expect(calls[0].body).toEqual(DEFAULT_DISPERSION_SETTING)
  })
})

describe('full-load hours calls', () => {
  const filter = { startDate: '2026-11-17', endDate: '2026-11-23', current: 2, size: 30 }

  it('builds the query: the station only on the inverter tab', () => {
    expect(hdayQuery({ ...filter, scope: 'station', stationId: '5' })).toEqual({
      current: 2,
      size: 30,
      startDate: '2026-11-17',
      endDate: '2026-11-23',
    })
    expect(hdayQuery({ ...filter, scope: 'inverter', stationId: '5' })).toMatchObject({
      stationId: '5',
    })
    expect(hdayQuery({ ...filter, scope: 'inverter' })).not.toHaveProperty('stationId')
  })

  it('calls the page of its tab and reads the rows by their own id and name', async () => {
    const calls = mockHttp((path) =>
      path === '/hdayRate/pageInverter'
        ? ok({
            records: [
              { inverterId: 9, inverterName: 'INV-9', stationName: 'S', hours: '3.2', flagged: 1 },
            ],
            total: 1,
            size: 30,
            current: 1,
            pages: 1,
          })
        : ok({ records: [{ stationId: '4', stationName: 'S4', flagged: false }], total: 1 }),
    )
    const inverters = await hdayPage({ ...filter, scope: 'inverter', stationId: '5' })
    expect(calls[0].path).toBe('/hdayRate/pageInverter')
    expect(calls[0].params.get('stationId')).toBe('5')
    expect(inverters.records[0]).toMatchObject({
      id: '9',
      name: 'INV-9',
      hours: 3.2,
      flagged: true,
    })
    const stations = await hdayPage({ ...filter, scope: 'station' })
    expect(calls[1].path).toBe('/hdayRate/pageStation')
    expect(stations.records[0]).toMatchObject({ id: '4', name: 'S4', flagged: false, hours: null })
  })

  it('puts the threshold setting', async () => {
    const calls = mockHttp(() => ok(true))
    await putHdaySetting({ thresholdPct: -15, minDays: 3 })
    expect([calls[0].method, calls[0].path, calls[0].body]).toEqual([
      'put',
      '/hdayRate/setting',
      { thresholdPct: -15, minDays: 3 },
    ])
  })
})

describe('bracket alarm calls', () => {
  it('deletes one id per call and stops at the server refusal, showing its message', async () => {
    const notifyError = vi.fn<(text: string) => void>()
    configureRequest({ notifyError })
    const calls = mockHttp((path) =>
      path === '/alarmDataFlex/2'
        ? { code: 400, success: false, data: null, msg: '请先清除告警' }
        : ok(true),
    )
    await expect(alarmDataFlexApi.remove(['1', '2', '3'])).rejects.toThrow('请先清除告警')
    expect(calls.map((c) => `${c.method} ${c.path}`)).toEqual([
      'delete /alarmDataFlex/1',
      'delete /alarmDataFlex/2',
    ])
    expect(notifyError).toHaveBeenCalledWith('请先清除告警')
  })

  it('maps the time range of the list and saves rules by POST / PUT', async () => {
    const calls = mockHttp(() => ok({ records: [], total: 0 }))
    await alarmDataFlexApi.list({ current: 1, size: 10, time_datege: '2026-11-01 00:00:00' })
    expect(calls[0].params.get('startTime')).toBe('2026-11-01 00:00:00')
    expect(calls[0].params.has('time_datege')).toBe(false)
    await alarmSettingFlexApi.submit({
      variable: 'wind_speed',
      comparison: '>',
      threshold: 1,
      enabled: 1,
    })
    await alarmSettingFlexApi.submit({
      id: '8',
      variable: 'wind_speed',
      comparison: '>',
      threshold: 1,
      enabled: 0,
    })
    expect(
      calls.slice(1).map((c) => [c.method, c.path, (c.body as { enabled: unknown }).enabled]),
    ).toEqual([
      ['post', '/alarmSettingFlex', true],
      ['put', '/alarmSettingFlex', false],
    ])
  })
})
