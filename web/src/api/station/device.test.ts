import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { mockHttp, ok, page, unmockHttp, type Call } from '../../test/http'
import { cameraApi } from './camera'
import { entityApi } from '../crud'
import { dictItemOptions, dictLabel, mapModelOptions, withoutBlankSecrets } from './device'
import { inverterApi, inverterFromWire, inverterToWire, parseModules } from './inverter'
import { thirdFromWire, thirdToWire } from './inverterThird'

let calls: Call[] = []
afterEach(() => unmockHttp())

describe('entityApi, rest style (the registries)', () => {
  const rows = [
    { id: '11', name: 'a', stationId: '1' },
    { id: '12', name: 'b', stationId: '1' },
  ]
  beforeEach(() => {
    calls = mockHttp((path) =>
      path === '/things/page'
        ? page(rows)
        : path === '/things/11'
          ? ok({ id: '11', name: 'full' })
          : ok(true),
    )
  })

  it('lists through /page with the filters and paging', async () => {
    const api = entityApi<{ id?: string; name?: string }>({ style: 'rest', base: '/things' })
    const result = await api.list({ current: 2, size: 10, stationId: '1' })
    expect(result.records).toHaveLength(2)
    expect(calls[0].path).toBe('/things/page')
    const params = calls[0].params
    expect(['current', 'size', 'stationId'].map((k) => params.get(k))).toEqual(['2', '10', '1'])
  })

  it('reads a record from GET /{id}, or from the page when the server has no such call', async () => {
    const remote = entityApi<{ id?: string; name?: string }>({
      style: 'rest',
      base: '/things',
      detail: true,
    })
    expect(await remote.detail('11')).toEqual({ id: '11', name: 'full' })
    expect(calls.at(-1)?.path).toBe('/things/11')

    const local = entityApi<{ id?: string; name?: string }>({ style: 'rest', base: '/things' })
    await local.list({})
    const before = calls.length
    expect(await local.detail('12')).toEqual(rows[1])
    expect(calls).toHaveLength(before)
    await expect(local.detail('99')).rejects.toThrow()
  })

  it('adds with POST, changes with PUT and deletes comma-joined ids', async () => {
    const api = entityApi<{ id?: string; name?: string }>({ style: 'rest', base: '/things' })
    await api.submit({ name: 'new' })
    await api.submit({ id: '11', name: 'renamed' })
    await api.remove(['11', '12'])
    expect(calls.map((c) => [c.method, c.path, c.body])).toEqual([
      ['post', '/things', { name: 'new' }],
      ['put', '/things', { id: '11', name: 'renamed' }],
      ['delete', '/things/11,12', undefined],
    ])
  })
})

describe('write-only secrets', () => {
  it('drops blank secrets and keeps typed ones', () => {
    expect(withoutBlankSecrets({ id: '1', password: '', account: 'x' }, ['password'])).toEqual({
      id: '1',
      account: 'x',
    })
    expect(withoutBlankSecrets({ password: '  ' }, ['password'])).toEqual({})
    expect(withoutBlankSecrets({ password: null }, ['password'])).toEqual({})
    expect(withoutBlankSecrets({ password: 's3cret' }, ['password'])).toEqual({
      password: 's3cret',
    })
  })

  it('third-party accounts never fill the password into the form; blank keeps the stored one', () => {
    expect(thirdFromWire({ id: '1', account: 'a', passwordSet: true, password: 'leak' })).toEqual({
      id: '1',
      account: 'a',
      passwordSet: true,
    })
    expect(thirdToWire({ id: '1', account: 'a', password: '' })).toEqual({ id: '1', account: 'a' })
    expect(thirdToWire({ account: 'a', password: 'p' })).toEqual({ account: 'a', password: 'p' })
  })

  it('a camera update without a new app key does not send one', async () => {
    calls = mockHttp(() => ok(true))
    await cameraApi.submit({ id: '5', name: 'gate', appKey: '' })
    await cameraApi.submit({ id: '5', name: 'gate', appKey: 'k2' })
    expect(calls.map((c) => c.body)).toEqual([
      { id: '5', name: 'gate' },
      { id: '5', name: 'gate', appKey: 'k2' },
    ])
  })
})

describe('inverter payloads', () => {
  it('parses modules per string from text', () => {
    expect(parseModules('20, 20,18')).toEqual([20, 20, 18])
    expect(parseModules('20，20')).toEqual([20, 20])
    expect(parseModules('')).toEqual([])
    expect(parseModules(null)).toEqual([])
    expect(parseModules([3, 4])).toEqual([3, 4])
    expect(parseModules('20,a')).toBeNull()
    expect(parseModules('0')).toBeNull()
    expect(parseModules('1.5')).toBeNull()
  })

  it('edits the list as text and sends it as numbers', () => {
    expect(inverterFromWire({ id: '1', modulesPerString: [20, 18] }).modulesPerString).toBe('20,18')
    expect(inverterToWire({ modulesPerString: '20,18' }).modulesPerString).toEqual([20, 18])
    expect(inverterToWire({ modulesPerString: '' }).modulesPerString).toBeNull()
    // Unparseable text goes as typed: the server answers with its own message.
    expect(inverterToWire({ modulesPerString: 'x' }).modulesPerString).toBe('x')
  })

  it('reads an inverter from GET /inverter/{id} in form shape', async () => {
    calls = mockHttp(() => ok({ id: '7', sn: 'SN7', modulesPerString: [10, 10] }))
    expect(await inverterApi.detail('7')).toEqual({ id: '7', sn: 'SN7', modulesPerString: '10,10' })
    expect(calls[0].path).toBe('/inverter/7')
  })

  it("lists inverters with their live status, power and, while withheld, the gateway's reason", async () => {
    const reason = 'identity unreadable: model_name not read'
    calls = mockHttp((path) =>
      path === '/inverter/page'
        ? page([
            { id: '7', sn: 'SN7' },
            { id: '8', sn: 'SN8' },
          ])
        : ok({
            records: [
              { id: '7', status: 'fault', acPowerKw: 0.2, withheld: reason },
              { id: '8', status: 'online', acPowerKw: 3.5 },
            ],
          }),
    )
    const rows = (await inverterApi.list({ current: 1, size: 10 })).records
    expect(calls[1].path).toBe('/inverterReal/list')
    expect(rows.map((r) => [r.id, r.liveStatus, r.acPowerKw, r.withheld])).toEqual([
      ['7', 'fault', 0.2, reason],
      ['8', 'online', 3.5, null],
    ])
  })
})

describe('options', () => {
  const entries = [
    { dictKey: '1', dictValue: '并网表', dictValueEn: 'Grid' },
    { dictKey: '2', dictValue: '发电表', dictValueEn: null },
  ]

  it('labels dictionary entries in the console language', () => {
    expect(dictLabel(entries[0], 'zh')).toBe('并网表')
    expect(dictLabel(entries[0], 'en')).toBe('Grid')
    expect(dictLabel(entries[1], 'en')).toBe('发电表')
    expect(dictItemOptions(entries, 'en')).toEqual([
      { value: '1', label: 'Grid' },
      { value: '2', label: '发电表' },
    ])
  })

  it('offers register maps by id with what they are', () => {
    expect(
      mapModelOptions([
        { id: 'sungrow_sg', kind: 'inverter', manufacturer: 'Sungrow', model: 'SG' },
      ]),
    ).toEqual([{ value: 'sungrow_sg', label: 'Sungrow SG (sungrow_sg)' }])
  })
})
