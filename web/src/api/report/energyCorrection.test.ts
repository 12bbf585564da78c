import { describe, expect, it } from 'vitest'
import { canAccept, type CounterStep } from './energyCorrection'

const step = (kind: CounterStep['kind'], oldKwh: number, newKwh: number): CounterStep => ({
  stationId: '1',
  stationName: 'S',
  deviceId: '2',
  deviceName: 'INV',
  deviceSn: 'SN',
  deviceKind: 'inverter',
  metric: 'energy_total',
  kind,
  time: '2026-05-10 13:30:00',
  oldKwh,
  oldTime: '2026-05-10 13:29:00',
  newKwh,
  lastKwh: newKwh,
  readings: 6,
  countedKwh: 0,
  decidedTime: '2026-05-10 13:35:00',
  decision: null,
})

describe('which steps may be counted as energy', () => {
  it('only a rejected or rebased step upwards', () => {
    expect(canAccept(step('rejected', 100, 2100))).toBe(true)
    expect(canAccept(step('rebase', 100, 2100))).toBe(true)
    expect(canAccept(step('rebase', 50_000, 12_345))).toBe(false)
    expect(canAccept(step('glitch', 100, 2100))).toBe(false)
    expect(canAccept(step('reset', 100, 0.4))).toBe(false)
  })
})
