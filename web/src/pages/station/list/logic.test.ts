import dayjs from 'dayjs'
import { describe, expect, it } from 'vitest'
import { checkImages, isStationImage, stationFilters, toBody, toFormValues } from './logic'

const png = (name = 'a.png') => ({ name, type: 'image/png' })

describe('station images', () => {
  it('accepts jpg, jpeg and png by name and type, refuses others', () => {
    expect(isStationImage({ name: 'roof.JPG', type: 'image/jpeg' })).toBe(true)
    expect(isStationImage({ name: 'roof.jpeg', type: '' })).toBe(true)
    expect(isStationImage(png())).toBe(true)
    expect(isStationImage({ name: 'roof.gif', type: 'image/gif' })).toBe(false)
    expect(isStationImage({ name: 'notes.txt', type: 'text/plain' })).toBe(false)
    // A renamed file whose browser type gives it away.
    expect(isStationImage({ name: 'fake.png', type: 'application/pdf' })).toBe(false)
  })

  it('allows up to 5 in total and refuses the whole selection beyond', () => {
    expect(checkImages(0, [png(), png()])).toBeNull()
    expect(checkImages(3, [png(), png()])).toBeNull()
    expect(checkImages(2, [png(), png(), png(), png()])).toBe('stationUi.image.tooMany')
    expect(checkImages(5, [png()])).toBe('stationUi.image.tooMany')
  })

  it('reports a wrong type before the count', () => {
    expect(checkImages(5, [{ name: 'x.txt', type: 'text/plain' }])).toBe('stationUi.image.badType')
    expect(checkImages(0, [png(), { name: 'x.bmp', type: 'image/bmp' }])).toBe(
      'stationUi.image.badType',
    )
  })
})

describe('station form values', () => {
  it('round-trips a station through the form to the wire body', () => {
    const values = toFormValues({
      id: '9',
      name: 'Sunny Roof',
      capacity: 60,
      stationType: '1',
      gridConnectionTime: '2026-03-01 10:00:00',
      provinceCode: '110000',
      cityCode: '110100',
      districtCode: null,
      latitude: 39.9,
      longitude: 116.4,
      images: [{ attachId: '5', link: '/f/5.png', originalName: '5.png' }],
      address: '',
    })
    expect(values.region).toEqual(['110000', '110100'])
    expect(values.gridConnectionTime?.format('YYYY-MM-DD HH:mm')).toBe('2026-03-01 10:00')
    expect(values.address).toBeUndefined()
    const body = toBody({ ...values, name: '  Sunny Roof 2 ' }, '9')
    expect(body).toMatchObject({
      id: '9',
      name: 'Sunny Roof 2',
      capacity: 60,
      stationType: '1',
      gridConnectionTime: '2026-03-01 10:00:00',
      provinceCode: '110000',
      cityCode: '110100',
      districtCode: null,
      latitude: 39.9,
      longitude: 116.4,
      images: ['5'],
      address: null,
    })
  })

  it('sends emptied fields as null and no id when adding', () => {
    const body = toBody({ name: 'x', gridConnectionTime: dayjs('invalid'), location: {} })
    expect(body.id).toBeUndefined()
    expect(body.gridConnectionTime).toBeNull()
    expect(body.latitude).toBeNull()
    expect(body.images).toEqual([])
    expect(body.ownerId).toBeNull()
    // The state column is NOT NULL: an empty state is left to the server.
    expect(body).not.toHaveProperty('state')
  })

  it('starts a new station as normal', () => {
    expect(toFormValues({}).state).toBe('1')
    expect(toFormValues({ id: '1', state: '3' }).state).toBe('3')
  })
})

describe('station list filters', () => {
  it('sends trimmed text, the chosen options and the deepest region code', () => {
    expect(
      stationFilters({
        name: ' roof ',
        state: '2',
        stationType: undefined,
        ownerName: '',
        region: ['110000', '110100'],
      }),
    ).toEqual({ name: 'roof', state: '2', regionCode: '110100' })
    expect(stationFilters({ region: [] })).toEqual({})
  })
})
