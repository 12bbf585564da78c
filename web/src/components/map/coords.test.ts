import { describe, expect, it } from 'vitest'
import { locationProblem, roundedLocation, validLatitude, validLongitude } from './coords'

describe('coordinates', () => {
  it('checks ranges and at most 6 decimals', () => {
    expect(validLatitude(90)).toBe(true)
    expect(validLatitude(-90)).toBe(true)
    expect(validLatitude(90.000001)).toBe(false)
    expect(validLatitude(39.1234567)).toBe(false)
    expect(validLatitude(Number.NaN)).toBe(false)
    expect(validLongitude(180)).toBe(true)
    expect(validLongitude(-180.5)).toBe(false)
    expect(validLongitude(116.123456)).toBe(true)
    expect(validLongitude(1e-7)).toBe(false)
  })

  it('names the first problem of a location; empty is fine, half is not', () => {
    expect(locationProblem(undefined)).toBeNull()
    expect(locationProblem({ latitude: null, longitude: null })).toBeNull()
    expect(locationProblem({ latitude: 39.9, longitude: 116.4 })).toBeNull()
    expect(locationProblem({ latitude: 91, longitude: 116.4 })).toBe('latitudeRange')
    expect(locationProblem({ latitude: 39.9, longitude: 181 })).toBe('longitudeRange')
    expect(locationProblem({ latitude: 39.9 })).toBe('bothOrNone')
    expect(locationProblem({ longitude: 116.4, latitude: null })).toBe('bothOrNone')
  })

  it('rounds clicked positions to 6 decimals and wraps the longitude', () => {
    expect(roundedLocation(39.123456789, 116.987654321)).toEqual({
      latitude: 39.123457,
      longitude: 116.987654,
    })
    expect(roundedLocation(10, 190).longitude).toBeCloseTo(-170, 6)
    expect(roundedLocation(95, -200)).toEqual({ latitude: 90, longitude: 160 })
  })
})
