import { describe, expect, it } from 'vitest'
import {
  co2AvoidedKg,
  displayUnit,
  formatCapacity,
  formatEnergy,
  formatMass,
  formatPower,
  formatValue,
  percentOf,
  scaleEnergy,
  scalePower,
} from './units'

describe('power scaling', () => {
  it.each([
    [0, '0 W'],
    [850, '850 W'],
    [999, '999 W'],
    [1000, '1 kW'],
    [12_345, '12.35 kW'],
    [523_440, '523.4 kW'],
    [1_234_567, '1.23 MW'],
    [-2500, '-2.5 kW'],
    [3.2e9, '3.2 GW'],
    [1.5e13, '15,000 GW'],
  ])('%d W reads %s', (watts, text) => {
    expect(formatPower(watts)).toBe(text)
  })

  it('starts at the minimum unit asked for', () => {
    expect(formatPower(850, 'kW')).toBe('0.85 kW')
    expect(formatPower(0, 'kW')).toBe('0 kW')
  })

  it('moves up when rounding would show 1,000 of a unit', () => {
    expect(formatPower(999_996)).toBe('1 MW')
    expect(scalePower(999_996).unit).toBe('MW')
  })

  it('shows a missing value as -- and keeps the unit for labels', () => {
    expect(formatPower(null)).toBe('--')
    expect(formatPower(undefined)).toBe('--')
    expect(formatPower(Number.NaN)).toBe('--')
    expect(scalePower(null, 'kW')).toMatchObject({ value: '--', unit: 'kW' })
  })
})

describe('energy, capacity and mass scaling', () => {
  it('counts energy in kWh by default', () => {
    expect(formatEnergy(500)).toBe('0.5 kWh')
    expect(formatEnergy(86_400)).toBe('86.4 kWh')
    expect(formatEnergy(1_240_000)).toBe('1.24 MWh')
    expect(formatEnergy(7.5e9)).toBe('7.5 GWh')
    expect(formatEnergy(500, 'Wh')).toBe('500 Wh')
    expect(scaleEnergy(2_000_000)).toMatchObject({ value: '2', unit: 'MWh', number: 2 })
  })

  it('shows capacity as kWp / MWp', () => {
    expect(formatCapacity(99_000)).toBe('99 kWp')
    expect(formatCapacity(2_500_000)).toBe('2.5 MWp')
  })

  it('shows CO2 in kg then tonnes', () => {
    expect(formatMass(820)).toBe('820 kg')
    expect(formatMass(1234)).toBe('1.23 t')
  })

  it('computes CO2 avoided with the stated coefficient', () => {
    expect(co2AvoidedKg(1000)).toBeCloseTo(0.997, 6)
    expect(co2AvoidedKg(2_000_000)).toBeCloseTo(1994, 6)
    expect(co2AvoidedKg(null)).toBeNull()
  })
})

describe('plain values', () => {
  it('formats with the unit and a sensible precision', () => {
    expect(formatValue(230.456, 'V')).toBe('230.5 V')
    expect(formatValue(8.123, 'A')).toBe('8.12 A')
    expect(formatValue(49.987, 'Hz', 2)).toBe('49.99 Hz')
    expect(formatValue(null, 'V')).toBe('--')
  })

  it('computes a percentage only when the whole is positive', () => {
    expect(percentOf(25, 100)).toBe(25)
    expect(percentOf(5, 0)).toBeNull()
    expect(percentOf(null, 10)).toBeNull()
  })

  it('shows canonical symbols in their usual spelling', () => {
    expect(displayUnit('degC')).toBe('°C')
    expect(displayUnit('W/m2')).toBe('W/m²')
    expect(displayUnit('code')).toBe('')
    expect(displayUnit('V')).toBe('V')
  })
})
